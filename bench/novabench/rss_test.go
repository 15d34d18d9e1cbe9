//go:build linux

package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMedianSizedTakesEachFieldOnItsOwn(t *testing.T) {
	tests := []struct {
		name string
		runs []sized
		want sized
	}{
		{"one run", []sized{{maxRSS: 1, timeRSS: 2, anon: 3, cpu: 4}}, sized{maxRSS: 1, timeRSS: 2, anon: 3, cpu: 4}},
		{"fields from different runs", []sized{
			{maxRSS: 30, timeRSS: 30, anon: 1, cpu: 9 * time.Millisecond},
			{maxRSS: 10, timeRSS: 10, anon: 3, cpu: 7 * time.Millisecond},
			{maxRSS: 20, timeRSS: 20, anon: 2, cpu: 8 * time.Millisecond},
		}, sized{maxRSS: 20, timeRSS: 20, anon: 2, cpu: 8 * time.Millisecond}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, medianSized(tc.runs), cmp.AllowUnexported(sized{})); diff != "" {
				t.Errorf("medianSized (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimeReportParses(t *testing.T) {
	report := "\tCommand being timed: \"nova --help\"\n\tMaximum resident set size (kbytes): 40664\n\tExit status: 0\n"
	m := timeMaxRSS.FindStringSubmatch(report)
	if m == nil || m[1] != "40664" {
		t.Fatalf("match %q, want 40664", m)
	}
}

func TestSetCacheStateRejectsUnknownStates(t *testing.T) {
	if err := setCacheState("/nonexistent", "warm"); err == nil {
		t.Fatal("an unknown state was accepted")
	}
	if err := setCacheState("/nonexistent", cacheAsIs); err != nil {
		t.Fatalf("as-is touches nothing, got %v", err)
	}
}
