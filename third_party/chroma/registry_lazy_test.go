package chroma

import (
	"reflect"
	"testing"
)

// NovaCode's copy: a lazy registry ends up as an eager one would, with the
// loaded lexers first and the ones registered before the load after them.
func TestLazyLexerRegistry(t *testing.T) {
	lexer := func(name string, aliases ...string) Lexer {
		return MustNewLexer(&Config{Name: name, Aliases: aliases}, func() Rules { return Rules{"root": {}} })
	}
	loads := 0
	var analysed Lexer
	reg := NewLazyLexerRegistry(func(register func(Lexer) Lexer) {
		loads++
		register(lexer("A", "a"))
		register(lexer("B", "b"))
	}, func(get func(string) Lexer) {
		analysed = get("b")
	})
	override := reg.Register(lexer("B", "bee"))
	extra := reg.Register(lexer("C"))
	if loads != 0 || len(reg.Lexers) != 0 {
		t.Fatalf("registering loaded the registry: %d loads, %d lexers", loads, len(reg.Lexers))
	}

	if got := reg.Get("B"); got != override {
		t.Errorf("Get(B) = %v, want the lexer registered before the load", got)
	}
	if got := reg.Get("bee"); got != override {
		t.Errorf("Get(bee) = %v, want the lexer registered before the load", got)
	}
	if got := reg.Get("C"); got != extra {
		t.Errorf("Get(C) = %v", got)
	}
	if analysed != override {
		t.Errorf("after saw %v for b, want the final registration", analysed)
	}
	var names []string
	for _, l := range reg.Lexers {
		names = append(names, l.Config().Name)
	}
	if want := []string{"A", "B", "C"}; !reflect.DeepEqual(names, want) {
		t.Errorf("Lexers = %v, want %v", names, want)
	}
	reg.Names(true)
	reg.Register(lexer("D"))
	if loads != 1 {
		t.Errorf("%d loads, want 1", loads)
	}
	if got := reg.Get("D"); got == nil || len(reg.Lexers) != 4 {
		t.Errorf("a lexer registered after the load is not there: %v, %d lexers", got, len(reg.Lexers))
	}
}
