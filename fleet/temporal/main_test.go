package temporal

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine the activities start (heartbeats, sessions, tools) ends
// with them. The test environment learns of a cancelled activity's end
// from a heartbeat the server no longer knows (a server would say
// "cancel requested"), takes it for a failure and schedules a retry on a
// timer of a workflow already complete: that goroutine is its own.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*testWorkflowEnvironmentImpl).executeActivityWithRetryForTest"))
}
