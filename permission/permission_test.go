package permission

import "testing"

func TestCheck(t *testing.T) {
	tests := []struct {
		name        string
		mode        Mode
		allow, deny []string
		call        Call
		want        Behavior
	}{
		{"default read-only", ModeDefault, nil, nil, Call{"Read", true}, Allow},
		{"default command asks", ModeDefault, nil, nil, Call{"Bash", false}, Ask},
		{"default edit asks", ModeDefault, nil, nil, Call{"Edit", false}, Ask},
		{"allow list", ModeDefault, []string{"Bash"}, nil, Call{"Bash", false}, Allow},
		{"deny beats allow", ModeDefault, []string{"Bash"}, []string{"Bash"}, Call{"Bash", false}, Deny},
		{"deny read-only", ModeDefault, nil, []string{"Read"}, Call{"Read", true}, Deny},
		{"acceptEdits edit", ModeAcceptEdits, nil, nil, Call{"Edit", false}, Allow},
		{"acceptEdits write", ModeAcceptEdits, nil, nil, Call{"Write", false}, Allow},
		{"acceptEdits command asks", ModeAcceptEdits, nil, nil, Call{"Bash", false}, Ask},
		{"plan read-only", ModePlan, nil, nil, Call{"Grep", true}, Allow},
		{"plan edit denied", ModePlan, nil, nil, Call{"Edit", false}, Deny},
		{"bypass", ModeBypass, nil, nil, Call{"Bash", false}, Allow},
		{"bypass still honours deny", ModeBypass, nil, []string{"Bash"}, Call{"Bash", false}, Deny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := NewChecker(tc.mode, tc.allow, tc.deny).Check(tc.call)
			if got.Behavior != tc.want || got.Reason == "" {
				t.Fatalf("Check = %+v, want %s with a reason", got, tc.want)
			}
		})
	}
}

func TestAllowAlways(t *testing.T) {
	c := NewChecker(ModeDefault, nil, nil)
	if c.Check(Call{Tool: "Bash"}).Behavior != Ask {
		t.Fatal("want ask before")
	}
	c.AllowAlways("Bash")
	c.AllowAlways("Bash")
	if d := c.Check(Call{Tool: "Bash"}); d.Behavior != Allow || d.Rule != "Bash" {
		t.Fatalf("after always: %+v", d)
	}
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"default", "acceptEdits", "plan", "bypassPermissions", ""} {
		if _, err := ParseMode(s); err != nil {
			t.Errorf("ParseMode(%q): %v", s, err)
		}
	}
	if _, err := ParseMode("yolo"); err == nil {
		t.Error("ParseMode accepted yolo")
	}
}
