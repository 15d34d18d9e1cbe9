//go:build unix

package nova

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// A hook that prints 50 MB on each stream is read to its end while only
// the capped part is kept.
func TestHookOutputIsCapped(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := runHookCommand(context.Background(),
		"head -c 50000000 /dev/zero; head -c 50000000 /dev/zero >&2", t.TempDir(), nil, []byte("{}"), 30*time.Second)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if res.code != 0 || res.stdout.buf.Len() != hookOutputCap || res.stderr.buf.Len() != hookOutputCap ||
		res.stdout.dropped != 50_000_000-hookOutputCap || res.stderr.dropped != 50_000_000-hookOutputCap {
		t.Fatalf("code %d, kept %d and %d, dropped %d and %d", res.code, res.stdout.buf.Len(), res.stderr.buf.Len(), res.stdout.dropped, res.stderr.dropped)
	}
	// What was kept (2 MB, grown by doubling), the copies' buffers, what
	// the race detector adds and whatever else the process allocated
	// meanwhile: under a quarter of what was read. Keeping it all would
	// take 100 MB and more.
	if n := after.TotalAlloc - before.TotalAlloc; n > 25<<20 {
		t.Errorf("reading 100 MB of output allocated %d bytes", n)
	}
}

// A hook's stdin can be larger than a pipe holds while the hook never
// reads it: the hook still ends, and its answer counts.
func TestHookThatIgnoresItsInput(t *testing.T) {
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = 'x'
	}
	res, err := runHookCommand(context.Background(), "echo ignored; exit 2", t.TempDir(), nil, big, 10*time.Second)
	if err != nil || res.code != 2 || res.stdout.String() != "ignored\n" {
		t.Fatalf("%+v, %v", res, err)
	}
}
