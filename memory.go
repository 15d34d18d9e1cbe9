package nova

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/contextinfo"
	"github.com/novacode/nova/llm"
)

// extractMemory proposes durable facts from history and appends them to
// path.
func extractMemory(ctx context.Context, client llm.Client, model, path string, history []llm.Message, onRetry func(event.Retry)) ([]string, string, error) {
	if onRetry != nil {
		client = retryHook{client, onRetry}
	}
	x := &contextinfo.Extractor{Client: client, Model: model, Path: path}
	facts, err := x.Propose(ctx, history)
	if err != nil {
		return nil, path, fmt.Errorf("memory extraction failed: %w", err)
	}
	if len(facts) == 0 {
		return nil, path, nil
	}
	if err := x.Append(facts); err != nil {
		return nil, path, fmt.Errorf("could not update %s: %w", path, err)
	}
	return facts, path, nil
}

// retryHook passes a client's streams through and reports each retry: for
// model calls outside the loop, whose retries no event carries.
type retryHook struct {
	c       llm.Client
	onRetry func(event.Retry)
}

func (r retryHook) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamEvent, error] {
	return func(yield func(llm.StreamEvent, error) bool) {
		for ev, err := range r.c.Stream(ctx, req) {
			if re, ok := ev.(llm.Retrying); ok {
				r.onRetry(retryEvent(re))
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// retryEvent is a retry of a model call outside the loop as the loop's
// retry event describes one.
func retryEvent(e llm.Retrying) event.Retry {
	ev := event.Retry{Turn: 1, Kind: string(llm.ErrOther), Retry: e.Attempt, MaxRetries: e.MaxRetries, WaitMS: e.Wait.Milliseconds()}
	if e.Err != nil {
		ev.Error = e.Err.Error()
	}
	var le *llm.Error
	if errors.As(e.Err, &le) {
		ev.Kind, ev.StatusCode = string(le.Kind), le.StatusCode
	}
	return ev
}
