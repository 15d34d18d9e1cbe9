package temporal

import (
	"os"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Histories recorded by a real server replay against the workflow's code:
// a change that would make a running workflow take another path than its
// history says (non-determinism) fails here. testdata holds a history of
// the end-to-end test (internal/e2e/temporal, with NOVA_UPDATE_HISTORY set)
// with a step retried after its worker was killed; that test also replays
// the histories of its run, all twenty, through NOVA_TEMPORAL_HISTORIES.
func TestReplayHistories(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	if dir := os.Getenv("NOVA_TEMPORAL_HISTORIES"); dir != "" {
		more, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		files = append(files, more...)
	}
	if len(files) == 0 {
		t.Fatal("no history to replay")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Errorf("replay %s: %v", f, err)
			}
		})
	}
}
