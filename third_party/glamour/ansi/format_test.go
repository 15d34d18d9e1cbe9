package ansi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"
)

// NovaCode's copy fills Format in without text/template (see formatToken):
// for every format it accepts, the result must be what upstream's template
// execution gives.
func TestFormatTokenMatchesTemplate(t *testing.T) {
	formats := []string{
		"",
		"\n--------\n",
		"Image: {{.text}} →",
		"Image: {{.text}}",
		"{{ .text }}",
		"[{{.text}}]({{.text}})",
		"a  {{- .text -}}  b",
		"a\n{{- .text}}\n",
	}
	formats = append(formats, stockFormats(t)...)
	for _, format := range formats {
		for _, token := range []string{"", "alt text", "{{.text}}", "\x1b]8;;http://x\x07x\x1b]8;;\x07"} {
			got, err := formatToken(format, token)
			if err != nil {
				t.Errorf("formatToken(%q, %q): %v", format, token, err)
				continue
			}
			if want := executeTemplate(t, format, token); got != want {
				t.Errorf("formatToken(%q, %q) = %q, text/template gives %q", format, token, got, want)
			}
		}
	}
}

func TestFormatTokenRejectsOtherActions(t *testing.T) {
	for _, format := range []string{
		"{{.text | ToUpper}}",
		"{{.other}}",
		"{{if .text}}x{{end}}",
		"{{.text",
	} {
		if got, err := formatToken(format, "x"); err == nil {
			t.Errorf("formatToken(%q) = %q, want an error", format, got)
		}
	}
}

// stockFormats returns every Format of the styles shipped in ../styles.
func stockFormats(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../styles/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no stock styles: %v", err)
	}
	var formats []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cfg StyleConfig
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, s := range []StylePrimitive{cfg.HorizontalRule, cfg.Image, cfg.ImageText, cfg.Link, cfg.LinkText,
			cfg.Strikethrough, cfg.Emph, cfg.Strong, cfg.Text, cfg.Code.StylePrimitive, cfg.Document.StylePrimitive} {
			if s.Format != "" {
				formats = append(formats, s.Format)
			}
		}
	}
	if !strings.Contains(strings.Join(formats, ""), "{{.text}}") {
		t.Fatalf("stock formats %q: none fills in the text; the test reads the wrong files", formats)
	}
	return formats
}

func executeTemplate(t *testing.T, format, token string) string {
	t.Helper()
	tmpl, err := template.New(format).Funcs(TemplateFuncMap).Parse(format)
	if err != nil {
		t.Fatalf("template %q: %v", format, err)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, map[string]any{"text": token}); err != nil {
		t.Fatalf("template %q: %v", format, err)
	}
	return b.String()
}
