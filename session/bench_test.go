package session_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

// writeBenchSession writes a 1,000-turn session: each turn an assistant
// message with text and a tool call, a ~10 KB tool result and running usage;
// a prompt every 10 turns.
func writeBenchSession(b *testing.B, dir string) (string, int64) {
	tr, err := session.Create(dir, "bench", testHeader)
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	line := "\tif err := handle(ctx, req); err != nil { return fmt.Errorf(\"handle: %w\", err) } // \"quoted\" <tags> & tabs\n"
	result := strings.Repeat(line, 10<<10/len(line)+1)
	var usage llm.Usage
	for turn := 1; turn <= 1000; turn++ {
		id := fmt.Sprintf("toolu_%06d", turn)
		recs := []session.Record{}
		if turn%10 == 1 {
			recs = append(recs, msg(turn, user(fmt.Sprintf("prompt %d: please look at the handler", turn))))
		}
		usage = usage.Add(llm.Usage{InputTokens: 3000, OutputTokens: 200, CacheReadTokens: 40000})
		recs = append(recs,
			msg(turn, &llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
				{Type: llm.BlockText, Text: "Let me read the next file to see how the handler is wired."},
				{Type: llm.BlockToolUse, ToolUseID: id, ToolName: "Read", Input: json.RawMessage(`{"file_path":"/work/proj/internal/server/handler.go","offset":1,"limit":400}`)},
			}}),
			session.Record{Type: session.TypeUsage, Turn: turn, Usage: &usage, CostUSD: float64(turn) * 0.01},
			msg(turn, &llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: id, Content: fmt.Sprintf("%d", turn) + result}}}),
		)
		for _, r := range recs {
			if err := tr.Append(r); err != nil {
				b.Fatal(err)
			}
		}
	}
	fi, err := os.Stat(tr.Path())
	if err != nil {
		b.Fatal(err)
	}
	return tr.Path(), fi.Size()
}

// BenchmarkLoad reads a 1,000-turn transcript of more than 10 MB.
func BenchmarkLoad(b *testing.B) {
	path, size := writeBenchSession(b, b.TempDir())
	if size < 10<<20 {
		b.Fatalf("transcript is only %d bytes", size)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		st, err := session.Load(path)
		if err != nil {
			b.Fatal(err)
		}
		if st.Turns != 1000 || len(st.Messages) != 2100 {
			b.Fatalf("loaded %d turns, %d messages", st.Turns, len(st.Messages))
		}
	}
}

// BenchmarkAppend is the cost the loop pays per recorded message: encode
// and one write(2) of a ~10 KB tool result (no fsync).
func BenchmarkAppend(b *testing.B) {
	tr, err := session.Create(b.TempDir(), "bench", testHeader)
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	r := msg(1, &llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "toolu_1",
		Content: strings.Repeat("\tfunc main() { fmt.Println(\"hello\") }\n", 256)}}})
	b.SetBytes(int64(len(r.Message.Content[0].Content)))
	b.ReportAllocs()
	for b.Loop() {
		if err := tr.Append(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList lists ten 1,000-turn (13 MB) sessions. "load" is the
// baseline, measured in the same run: loading every transcript whole, as
// List did before it read only their ends.
func BenchmarkList(b *testing.B) {
	dir := b.TempDir()
	var paths []string
	for i := range 10 {
		sub := filepath.Join(dir, fmt.Sprint(i))
		p, _ := writeBenchSession(b, sub)
		final := filepath.Join(dir, fmt.Sprintf("bench%d.jsonl", i))
		if err := os.Rename(p, final); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, final)
	}
	b.Run("list", func(b *testing.B) {
		for b.Loop() {
			infos, err := session.List(dir)
			if err != nil || len(infos) != 10 || infos[0].Turns != 1000 {
				b.Fatalf("%d sessions, %v", len(infos), err)
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			for _, p := range paths {
				if _, err := session.Load(p); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
