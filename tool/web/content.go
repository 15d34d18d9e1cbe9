package web

import (
	"bytes"
	"context"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
)

// Kind is what a body is, for the model.
type Kind int

const (
	// Binary is anything not meant to be read as text (images, PDFs,
	// archives, executables); it is not read.
	Binary Kind = iota
	// HTML is converted to Markdown.
	HTML
	// Text is returned as it is: text/*, JSON, XML, YAML, JavaScript, …
	Text
)

func (k Kind) String() string {
	switch k {
	case HTML:
		return "html"
	case Text:
		return "text"
	}
	return "binary"
}

// textTypes are the media types outside text/* that are text to read.
var textTypes = map[string]bool{
	"application/json": true, "application/xml": true, "application/javascript": true,
	"application/ecmascript": true, "application/x-javascript": true, "application/yaml": true,
	"application/x-yaml": true, "application/toml": true, "application/x-sh": true,
	"application/x-ndjson": true, "application/graphql": true, "application/sql": true,
	"application/x-httpd-php": true, "application/x-tex": true,
}

// contentType returns the media type of a body and its charset: from the
// header, or sniffed from its first bytes when the header says nothing
// useful.
func contentType(header string, head []byte) (mediaType, charset string) {
	mt, params, err := mime.ParseMediaType(header)
	if err != nil || mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream" {
		mt, params, _ = mime.ParseMediaType(http.DetectContentType(head))
	}
	charset = strings.ToLower(params["charset"])
	if charset == "" && isHTML(mt) {
		charset = metaCharset(head)
	}
	return mt, charset
}

func isHTML(mt string) bool { return mt == "text/html" || mt == "application/xhtml+xml" }

// classify decides how a body of media type mt is shown.
func classify(mt string, head []byte) Kind {
	switch {
	case isHTML(mt):
		return HTML
	case strings.HasPrefix(mt, "text/"), textTypes[mt],
		strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"), strings.HasSuffix(mt, "+yaml"):
		if looksBinary(head) {
			return Binary
		}
		return Text
	}
	return Binary
}

// looksBinary reports whether b holds a NUL byte in its first 8 KB, which
// no text does (UTF-16 aside, which the web does not serve as text).
func looksBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8<<10)], 0) >= 0
}

// metaCharset finds the charset an HTML page declares in its head
// (<meta charset="…"> or http-equiv's content="…; charset=…").
func metaCharset(head []byte) string {
	s := strings.ToLower(string(head))
	i := strings.Index(s, "charset=")
	if i < 0 {
		return ""
	}
	s = strings.TrimLeft(s[i+len("charset="):], `"' `)
	end := strings.IndexAny(s, `"'; />`)
	if end < 0 {
		return ""
	}
	return s[:end]
}

// toUTF8 decodes b from charset. Windows-1252 and its subsets (Latin-1,
// ASCII) are decoded; other charsets are read as UTF-8, with invalid
// sequences replaced, since their tables would cost more than such pages
// are worth.
func toUTF8(b []byte, charset string) []byte {
	switch charset {
	case "iso-8859-1", "latin1", "l1", "windows-1252", "cp1252", "us-ascii", "ascii", "iso_8859-1":
		if utf8.Valid(b) && !hasHigh(b) {
			return b
		}
		out := make([]rune, 0, len(b))
		for _, c := range b {
			r := rune(c)
			if c >= 0x80 && c < 0xa0 && cp1252[c-0x80] != 0 {
				r = cp1252[c-0x80]
			}
			out = append(out, r)
		}
		return []byte(string(out))
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}

func hasHigh(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// cp1252 maps Windows-1252's bytes 0x80–0x9F, where it differs from
// Latin-1; 0 marks the five it leaves undefined.
var cp1252 = [32]rune{
	'€', 0, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0, 'Ž', 0,
	0, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0, 'ž', 'Ÿ',
}

// markdown is the HTML converter, built on first use: nothing of it runs
// when nova starts.
var markdown = sync.OnceValue(func() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(commonmark.WithListEndComment(false)),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	// Drawings are coordinates, not text.
	conv.Register.TagType("svg", converter.TagTypeRemove, converter.PriorityStandard)
	return conv
})

// Markdown converts an HTML page to Markdown; relative links are resolved
// against base.
func Markdown(ctx context.Context, html []byte, base *url.URL) (string, error) {
	opts := []converter.ConvertOptionFunc{converter.WithContext(ctx)}
	if base != nil {
		opts = append(opts, converter.WithDomain(base.String()))
	}
	out, err := markdown().ConvertReader(bytes.NewReader(html), opts...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
