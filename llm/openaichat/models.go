package openaichat

import (
	"context"

	"github.com/novacode/nova/llm/internal/wire"
)

// ContextWindow asks the endpoint's models API (GET {base}/models, see
// wire.HTTP.ListedWindow) for the context length of model. It returns 0 and
// no error when the endpoint does not say (OpenAI's own list never does).
// Answers are cached per model for the Client's life.
func (c *Client) ContextWindow(ctx context.Context, model string) (int, error) {
	if c.ep.ConfigErr != nil {
		return 0, c.ep.ConfigErr
	}
	c.windowsMu.Lock()
	w, ok := c.windows[model]
	c.windowsMu.Unlock()
	if ok {
		return w, nil
	}

	// The request timeout bounds the whole call here (the call is never
	// told the response started), as the body is small.
	call, err := wire.Start(ctx, c.ep.Name, c.ep.RequestTimeout)
	if err != nil {
		return 0, err
	}
	defer call.End()
	w, err = c.ep.HTTP.ListedWindow(call.Context(), model)
	if err != nil {
		return 0, call.Classify(err, false, fromHTTPError)
	}
	return c.remember(model, w), nil
}

func (c *Client) remember(model string, w int) int {
	c.windowsMu.Lock()
	defer c.windowsMu.Unlock()
	if c.windows == nil {
		c.windows = make(map[string]int)
	}
	c.windows[model] = w
	return w
}
