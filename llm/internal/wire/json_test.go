package wire

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLenientFields(t *testing.T) {
	var v struct {
		A, B, C, D, E Text
		N, M, O, P, Q Count
		R, S, U       Raw
	}
	in := `{"A":"plain","B":"esc\"aped \u00e9","C":null,"D":{"x": 1},"E":12,
		"N":12,"M":12.0,"O":"many","P":-3,"Q":"7",
		"R":{"k":[]},"S":null,"U":""}`
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	got := []any{v.A, v.B, v.C, v.D, v.E, v.N, v.M, v.O, v.P, v.Q, string(v.R), v.R.Present(), v.S == nil, v.S.Present(), v.U.Present()}
	want := []any{Text("plain"), Text(`esc"aped é`), Text(""), Text(`{"x": 1}`), Text("12"), Count(12), Count(12), Count(0), Count(0), Count(7),
		`{"k":[]}`, true, true, false, false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := json.Unmarshal([]byte(`{"A":"x`), &v); err == nil {
		t.Error("invalid JSON decoded")
	}
}
