package session_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

const (
	crashChildEnv = "NOVA_SESSION_CRASH_DIR"
	crashID       = "crash"
	crashMaxBytes = 12 << 20 // the writer stops growing the file here
)

// crashRecord is the k-th record the writer appends: deterministic, so the
// parent knows what was written without being told. Every 4th is large, so
// kills land inside writes.
func crashRecord(k int) session.Record {
	size := 200 + (k*7919)%4000
	if k%4 == 3 {
		size = 64<<10 + (k*104729)%(512<<10)
	}
	role := llm.RoleUser
	if k%2 == 1 {
		role = llm.RoleAssistant
	}
	text := fmt.Sprintf("%d:", k) + strings.Repeat(string(rune('a'+k%26)), size)
	return session.Record{Type: session.TypeMessage, Turn: k + 1,
		Message: &llm.Message{Role: role, Content: []llm.Block{{Type: llm.BlockText, Text: text}}}}
}

// crashChild resumes the session and appends records until killed.
func crashChild(dir string) {
	tr, st, err := session.Open(dir, crashID)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println("ready")
	fi, err := os.Stat(tr.Path())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	written := fi.Size()
	for k := len(st.Live); written < crashMaxBytes; k++ {
		r := crashRecord(k)
		if err := tr.Append(r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		written += int64(len(r.Message.Content[0].Text))
		if k%16 == 0 {
			tr.Sync()
		}
		fmt.Println(k) // progress, so the parent can aim its kill
	}
	// Full: say so by closing stdout, and wait for the kill (but never
	// outlive a parent that failed to send it for long).
	os.Stdout.Close()
	time.Sleep(time.Minute)
}

// TestCrashSafety kills a writer at random moments; every time, the file
// must load and hold a prefix of what the writer appended, and the next
// writer must be able to continue it.
func TestCrashSafety(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr, err := session.Create(dir, crashID, testHeader)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	torn, full, prev := 0, 0, 0
	for i := range 20 {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let the child append 0 to 5 records, then kill it at a random
		// moment within the next few: often inside a large write.
		progress := bufio.NewReader(out)
		if line, err := progress.ReadString('\n'); line != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("iteration %d: child said %q, %v", i, line, err)
		}
		for n := rng.IntN(6); n > 0; n-- {
			if _, err := progress.ReadString('\n'); err != nil {
				full++ // the file is full and the child idle
				break
			}
		}
		time.Sleep(time.Duration(rng.Int64N(int64(3 * time.Millisecond))))
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()

		st, err := session.Load(tr.Path())
		if err != nil {
			t.Fatalf("iteration %d: Load after SIGKILL: %v", i, err)
		}
		if st.Torn {
			torn++
		}
		if len(st.Live) < prev {
			t.Fatalf("iteration %d: %d records, fewer than the %d before", i, len(st.Live), prev)
		}
		for k, r := range st.Live {
			want := crashRecord(k)
			if r.Turn != want.Turn || r.Type != want.Type || !cmp.Equal(r.Message, want.Message) {
				t.Fatalf("iteration %d: record %d is not the one written (turn %d, %d bytes)", i, k, r.Turn, len(r.Message.Text()))
			}
		}
		prev = len(st.Live)
	}
	fi, _ := os.Stat(tr.Path())
	t.Logf("%d records, %d bytes after 20 kills (%d of them of an idle writer); %d loads found a torn last line",
		prev, fi.Size(), full, torn)
}
