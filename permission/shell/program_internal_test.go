package shell

import "testing"

// Each program has one handler: a name registered by two families would
// be judged by whichever registered last.
func TestProgramsRegisteredOnce(t *testing.T) {
	if len(duplicates) > 0 {
		t.Errorf("registered more than once: %q", duplicates)
	}
}
