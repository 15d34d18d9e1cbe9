package session_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/session"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func objects(t *testing.T, s *session.Snapshots) []string {
	t.Helper()
	es, err := os.ReadDir(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestSnapshotSave(t *testing.T) {
	work, store := t.TempDir(), t.TempDir()
	binary := make([]byte, 0, 1<<20+256)
	for i := range 256 {
		binary = append(binary, byte(i))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for len(binary) < cap(binary) {
		binary = append(binary, byte(r.Uint32()))
	}
	files := []struct {
		name    string
		content []byte
		mode    fs.FileMode
	}{
		{"text.go", []byte("package main\n"), 0o644},
		{"binary.bin", binary, 0o600},
		{"script.sh", []byte("#!/bin/sh\necho hi\n"), 0o755},
		{"copy.go", []byte("package main\n"), 0o640}, // same content as text.go
		{"empty", nil, 0o644},
	}
	for _, f := range files {
		p := filepath.Join(work, f.name)
		if err := os.WriteFile(p, f.content, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
	}

	s := session.NewSnapshots(store, "s1")
	if s.Dir() != filepath.Join(store, "s1", "snapshots") {
		t.Errorf("Dir = %s", s.Dir())
	}
	for _, f := range files {
		p := filepath.Join(work, f.name)
		rec, ok, err := s.Save(1, p)
		if err != nil || !ok {
			t.Fatalf("Save(%s) = %v, %v", f.name, ok, err)
		}
		want := session.Record{Type: session.TypeSnapshot, Turn: 1, Path: p, Hash: sha(f.content), Mode: uint32(f.mode)}
		if d := cmp.Diff(want, rec); d != "" {
			t.Errorf("Save(%s) (-want +got):\n%s", f.name, d)
		}
		stored, err := os.ReadFile(filepath.Join(s.Dir(), rec.Hash))
		if err != nil || !bytes.Equal(stored, f.content) {
			t.Errorf("stored object for %s differs (%v)", f.name, err)
		}
	}
	// text.go and copy.go share one object; no temporary files are left.
	if got := objects(t, s); len(got) != 4 {
		t.Errorf("objects = %v, want 4", got)
	}

	// Absent files are recorded with no hash.
	missing := filepath.Join(work, "sub", "new.go")
	rec, ok, err := s.Save(1, missing)
	if err != nil || !ok || !cmp.Equal(rec, session.Record{Type: session.TypeSnapshot, Turn: 1, Path: missing}) {
		t.Errorf("Save(absent) = %+v, %v, %v", rec, ok, err)
	}

	// Once per (turn, path): later calls in the turn record nothing, even
	// after the file changed; the next turn snapshots again.
	p := filepath.Join(work, "text.go")
	os.WriteFile(p, []byte("changed"), 0o644)
	if rec, ok, err := s.Save(1, p); ok || err != nil || rec.Type != "" {
		t.Errorf("second Save in turn 1 = %+v, %v, %v", rec, ok, err)
	}
	if _, ok, _ := s.Save(1, missing); ok {
		t.Error("second Save of an absent file in turn 1 recorded again")
	}
	if rec, ok, err := s.Save(2, p); !ok || err != nil || rec.Hash != sha([]byte("changed")) {
		t.Errorf("Save in turn 2 = %+v, %v, %v", rec, ok, err)
	}

	// Relative paths are made absolute.
	t.Chdir(work)
	if rec, ok, err := s.Save(3, "copy.go"); !ok || err != nil || rec.Path != filepath.Join(work, "copy.go") {
		t.Errorf("Save(relative) = %+v, %v, %v", rec, ok, err)
	}

	// A resumed session marks what it already has.
	s2 := session.NewSnapshots(store, "s1")
	s2.Seen([]session.Record{{Type: session.TypeSnapshot, Turn: 2, Path: p}, {Type: session.TypeMessage, Turn: 3, Path: missing}})
	if _, ok, _ := s2.Save(2, p); ok {
		t.Error("Save after Seen recorded again")
	}
	if _, ok, _ := s2.Save(3, missing); !ok {
		t.Error("Seen took a non-snapshot record")
	}

	if _, _, err := s.Save(4, work); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Save(directory) = %v", err)
	}
	if _, _, err := session.NewSnapshots(store, "../x").Save(1, p); err == nil {
		t.Error("Save with an invalid session id succeeded")
	}
}

// tree is the content and mode of every file under a directory.
type fileState struct {
	Content string
	Mode    fs.FileMode
}

func snapshotTree(t *testing.T, root string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = fileState{string(b), fi.Mode()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rewindScenario plays five turns in a fresh work tree, saving snapshots
// as a tool would before each change. It returns the snapshot records, the
// tree after each turn (index 0: before turn 1) and the store.
//
//	turn 1: edit c.txt
//	turn 2: edit a.bin (binary) and chmod it
//	turn 3: create sub/dir/b.txt
//	turn 4: edit a.bin again (twice)
//	turn 5: delete sub/dir/b.txt
func rewindScenario(t *testing.T) (string, []session.Record, []map[string]fileState, *session.Snapshots) {
	work := t.TempDir()
	s := session.NewSnapshots(t.TempDir(), "s")
	a, b, c := filepath.Join(work, "a.bin"), filepath.Join(work, "sub", "dir", "b.txt"), filepath.Join(work, "c.txt")
	os.WriteFile(a, []byte{0, 1, 2, 0xff, '\r', '\n', 0}, 0o600)
	os.WriteFile(c, []byte("c original\n"), 0o644)

	var recs []session.Record
	save := func(turn int, p string) {
		rec, ok, err := s.Save(turn, p)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			recs = append(recs, rec)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Helper()
			t.Fatal(err)
		}
	}
	states := []map[string]fileState{snapshotTree(t, work)}
	turns := []func(turn int){
		func(n int) { save(n, c); must(os.WriteFile(c, []byte("c turn 1\n"), 0o644)) },
		func(n int) {
			save(n, a)
			must(os.WriteFile(a, []byte{9, 9, 0, 9}, 0o600))
			save(n, a)
			must(os.Chmod(a, 0o755))
		},
		func(n int) {
			save(n, b)
			must(os.MkdirAll(filepath.Dir(b), 0o755))
			must(os.WriteFile(b, []byte("new file"), 0o644))
		},
		func(n int) {
			save(n, a)
			must(os.WriteFile(a, []byte("turn 4, first edit"), 0o755))
			save(n, a)
			must(os.WriteFile(a, []byte("turn 4, second edit"), 0o755))
		},
		func(n int) { save(n, b); must(os.Remove(b)) },
	}
	for i, f := range turns {
		f(i + 1)
		states = append(states, snapshotTree(t, work))
	}
	return work, recs, states, s
}

func TestRewindPlanAndApply(t *testing.T) {
	work, recs, _, _ := rewindScenario(t)
	a, b := filepath.Join(work, "a.bin"), filepath.Join(work, "sub", "dir", "b.txt")
	wantPlans := map[int][]session.Restore{
		3: {{Path: a, Hash: sha([]byte{9, 9, 0, 9}), Mode: 0o755}, {Path: b, Delete: true}},
		2: {{Path: a, Hash: sha([]byte{0, 1, 2, 0xff, '\r', '\n', 0}), Mode: 0o600}, {Path: b, Delete: true}},
		5: {{Path: b, Hash: sha([]byte("new file")), Mode: 0o644}},
		6: {},
	}
	for turn, want := range wantPlans {
		if d := cmp.Diff(want, session.RewindPlan(recs, turn)); d != "" {
			t.Errorf("RewindPlan(%d) (-want +got):\n%s", turn, d)
		}
	}

	// Rewinding to before turn N restores exactly the tree after turn N-1,
	// whichever turn the files are in now.
	for turn := 1; turn <= 6; turn++ {
		for from := turn; from <= 5; from++ {
			work, recs, states, s := rewindScenario(t)
			// Put the tree in the state after turn `from` by rewinding the
			// later turns first (itself a rewind under test).
			if err := s.Apply(session.RewindPlan(recs, from+1)); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(states[from], snapshotTree(t, work)); d != "" {
				t.Fatalf("rewind to %d (-want +got):\n%s", from+1, d)
			}
			if err := s.Apply(session.RewindPlan(recs, turn)); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(states[turn-1], snapshotTree(t, work)); d != "" {
				t.Errorf("rewind from after turn %d to %d (-want +got):\n%s", from, turn, d)
			}
		}
	}
}

func TestRewindPlanAfterAConversationRewind(t *testing.T) {
	// Turn numbers keep growing after a rewind; snapshots of rewound turns
	// still tell what a file held before them.
	recs := []session.Record{
		{Type: session.TypeSnapshot, Turn: 2, Path: "/a", Hash: someHash, Mode: 0o644}, // rewound later
		{Type: session.TypeSnapshot, Turn: 3, Path: "/b"},                              // rewound later
		{Type: session.TypeSnapshot, Turn: 5, Path: "/b", Hash: someHash, Mode: 0o600},
		{Type: session.TypeMessage, Turn: 5, Path: "/ignored"},
	}
	want := []session.Restore{{Path: "/a", Hash: someHash, Mode: 0o644}, {Path: "/b", Delete: true}}
	if d := cmp.Diff(want, session.RewindPlan(recs, 1)); d != "" {
		t.Errorf("RewindPlan (-want +got):\n%s", d)
	}
}

func TestApplyRefusesBeforeTouchingAnything(t *testing.T) {
	work, recs, states, s := rewindScenario(t)
	plan := session.RewindPlan(recs, 1)
	tests := []struct {
		name string
		plan []session.Restore
		want string
	}{
		{"missing object", append(plan, session.Restore{Path: filepath.Join(work, "x"), Hash: sha([]byte("never stored"))}), "snapshot missing"},
		{"malformed hash", append(plan, session.Restore{Path: filepath.Join(work, "x"), Hash: "../../../etc/passwd"}), "malformed snapshot hash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Apply(tt.plan)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Apply = %v, want %q", err, tt.want)
			}
			if d := cmp.Diff(states[5], snapshotTree(t, work)); d != "" {
				t.Errorf("files changed (-want +got):\n%s", d)
			}
		})
	}

	// A corrupt object fails that file only, leaving it untouched.
	p := filepath.Join(work, "a.bin")
	var h string
	for _, r := range plan {
		if r.Path == p {
			h = r.Hash
		}
	}
	if err := os.WriteFile(filepath.Join(s.Dir(), h), []byte("bit rot"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := s.Apply(plan)
	if err == nil || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), p) {
		t.Errorf("Apply with a corrupt object = %v", err)
	}
	got := snapshotTree(t, work)
	if got["a.bin"] != states[5]["a.bin"] || got["c.txt"] != states[0]["c.txt"] {
		t.Errorf("after a partial failure: %v", got)
	}
	if es, _ := os.ReadDir(work); len(es) != 3 { // a.bin, c.txt, sub: no temporary files
		t.Errorf("work dir holds %d entries", len(es))
	}
}

func TestApplyWritesThroughSymlinks(t *testing.T) {
	work := t.TempDir()
	s := session.NewSnapshots(t.TempDir(), "s")
	target, link := filepath.Join(work, "real.txt"), filepath.Join(work, "link.txt")
	os.WriteFile(target, []byte("before"), 0o644)
	if err := os.Symlink("real.txt", link); err != nil {
		t.Skip(err)
	}
	rec, _, err := s.Save(1, link)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(link, []byte("after"), 0o644)
	if err := s.Apply(session.RewindPlan([]session.Record{rec}, 1)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "before" {
		t.Errorf("target holds %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link replaced: %v, %v", fi, err)
	}
}
