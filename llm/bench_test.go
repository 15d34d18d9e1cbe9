package llm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkBaselineDecode is the floor each adapter's BenchmarkStreamNormalize
// is compared with: split the largest recorded stream of each protocol into
// SSE data lines and decode each into a generic JSON value, with no SDK and
// no normalization. Run both in one `go test -bench` and report the ratio.
func BenchmarkBaselineDecode(b *testing.B) {
	for _, dir := range []string{"anthropic", "openai-responses", "openai-chat"} {
		b.Run(dir, func(b *testing.B) {
			body := largest(b, filepath.Join("testdata", "providers", dir))
			events := 0
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				events = 0
				sc := bufio.NewScanner(bytes.NewReader(body))
				sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
				for sc.Scan() {
					line := sc.Bytes()
					data, ok := bytes.CutPrefix(line, []byte("data:"))
					if !ok || bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")) {
						continue
					}
					var v any
					if err := json.Unmarshal(data, &v); err != nil {
						b.Fatal(err)
					}
					events++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
		})
	}
}

func largest(b *testing.B, dir string) []byte {
	b.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.sse"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no fixtures in %s: %v", dir, err)
	}
	var best []byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if len(data) > len(best) {
			best = data
		}
	}
	return best
}
