package temporalcli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.temporal.io/sdk/client"

	fleettemporal "github.com/novacode/nova/fleet/temporal"
	"github.com/novacode/nova/internal/cli"
	"github.com/novacode/nova/internal/iostreams"
)

// nova's Temporal flags, parsed where the SDK is not linked, default to
// the SDK's address and namespace and to fleet/temporal's task queue.
func TestFlagDefaultsAreTheSDKs(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	var got cli.TemporalOptions
	c := &cli.Companion{Worker: func(_ context.Context, o *cli.WorkerOptions) error { got = o.Temporal; return nil }}
	if code := cli.RunWith(t.Context(), ios, []string{"worker"}, c); code != 0 {
		t.Fatalf("nova worker: exit %d: %s", code, errOut)
	}
	want := cli.TemporalOptions{Address: client.DefaultHostPort, Namespace: client.DefaultNamespace, TaskQueue: fleettemporal.DefaultTaskQueue}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("defaults (-SDK +nova):\n%s", d)
	}
}

// A cluster that does not answer is named in the error, for the batch and
// the worker alike.
func TestUnreachableCluster(t *testing.T) {
	for _, args := range [][]string{
		{"worker", "--temporal-address", "127.0.0.1:1"},
		{"batch", "--engine", "temporal", "--temporal-address", "127.0.0.1:1", "-"},
	} {
		ios, in, _, errOut := iostreams.Test()
		in.WriteString(`{"id": "t1", "prompt": "p"}` + "\n")
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		code := cli.RunWith(ctx, ios, args, Companion())
		cancel()
		if code != 1 || (!strings.Contains(errOut.String(), "connect to Temporal at 127.0.0.1:1 (namespace default)") || !strings.Contains(errOut.String(), "--temporal-address")) {
			t.Errorf("nova %v: exit %d: %s", args, code, errOut)
		}
	}
}
