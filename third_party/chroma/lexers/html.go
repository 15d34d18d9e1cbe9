package lexers

import (
	"github.com/novacode/nova/third_party/chroma"
)

// HTML lexer.
var HTML = chroma.MustNewXMLLexer(embedded, "embedded/html.xml")
