package verdict_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/permission/verdict"
)

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    verdict.Mode
		wantErr bool
	}{
		{"", verdict.ModeDefault, false},
		{"default", verdict.ModeDefault, false},
		{"acceptEdits", verdict.ModeAcceptEdits, false},
		{"plan", verdict.ModePlan, false},
		{"bypassPermissions", verdict.ModeBypass, false},
		{"bypass", "", true},
		{"Plan", "", true},
	}
	for _, tt := range tests {
		got, err := verdict.ParseMode(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseMode(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestLift(t *testing.T) {
	type lift struct {
		Rules []string
		Mode  verdict.Mode
		OK    bool
	}
	tests := []struct {
		name string
		d    verdict.Decision
		want lift
	}{
		{"allow", verdict.Decision{Behavior: verdict.Allow, Suggest: []string{"Bash(ls)"}}, lift{}},
		{"deny", verdict.Decision{Behavior: verdict.Deny, Suggest: []string{"Bash(ls)"}}, lift{}},
		{"ask, rules", verdict.Decision{Behavior: verdict.Ask, Suggest: []string{"Bash(make)"}}, lift{[]string{"Bash(make)"}, "", true}},
		{"ask, rules and a mode", verdict.Decision{Behavior: verdict.Ask, Suggest: []string{"Bash(touch x)"}, SuggestMode: verdict.ModeAcceptEdits},
			lift{[]string{"Bash(touch x)"}, verdict.ModeAcceptEdits, true}},
		{"ask, the mode suffices", verdict.Decision{Behavior: verdict.Ask, Suggest: []string{"Edit(/x)"}, SuggestMode: verdict.ModeAcceptEdits, ModeSuffices: true},
			lift{nil, verdict.ModeAcceptEdits, true}},
		{"ask, nothing suggested", verdict.Decision{Behavior: verdict.Ask}, lift{}},
		{"ask, only a person", verdict.Decision{Behavior: verdict.Ask, Suggest: []string{"Bash(rm -rf x)"}, NeedsPerson: true}, lift{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got lift
			got.Rules, got.Mode, got.OK = tt.d.Lift()
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Lift() mismatch (-want +got):\n%s", d)
			}
		})
	}
}
