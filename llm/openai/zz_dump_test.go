package openai

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/novacode/nova/llm"
)

func TestZZDump(t *testing.T) {
	dir := filepath.Join("/tmp/s5", os.Getenv("PHASE"), "openai")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for seed := uint64(0); seed < 80; seed++ {
		g := newHistoryGen(seed)
		sg := newHistoryGen(seed + 1000)
		msgs := g.history(4 + int(seed%30))
		base := ""
		if seed%2 == 1 {
			base = "https://api.openai.com/v1"
		}
		if seed%7 == 3 {
			base = "https://api.anthropic.com"
		}
		ct := &captureTransport{}
		c := captureClient(ct, base)
		tmpl := sg.request(nil)
		step := 0
		dump := func(m []llm.Message) {
			req := *tmpl
			if seed%5 == 0 {
				req = *sg.request(nil)
			}
			req.Messages = m
			body := send(t, c, ct, &req)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%03d_%02d.json", seed, step)), body, 0o644); err != nil {
				t.Fatal(err)
			}
			step++
		}
		for k := 0; k <= len(msgs); k += 1 + int(seed%3) {
			dump(msgs[:k])
		}
		dump(msgs)
		dump(msgs)
		// In-place edits of earlier messages.
		for j := range msgs {
			if len(msgs[j].Content) == 0 {
				continue
			}
			b := &msgs[j].Content[0]
			switch j % 4 {
			case 0:
				b.Text += "!"
				b.Content += "?"
			case 1:
				for i := range msgs[j].Content {
					if in := msgs[j].Content[i].Input; len(in) > 2 {
						in[len(in)/2] ^= 1
						break
					}
				}
			case 2:
				msgs[j].Content = msgs[j].Content[:len(msgs[j].Content)-1]
			case 3:
				b.IsError = !b.IsError
			}
			if j%3 == 0 {
				dump(msgs)
			}
		}
		dump(msgs)
		if len(msgs) > 3 {
			msgs[1], msgs[3] = msgs[3], msgs[1]
			dump(msgs)
			dump(msgs[:len(msgs)/2])
			msgs[1], msgs[3] = msgs[3], msgs[1]
			dump(msgs)
		}
	}
}
