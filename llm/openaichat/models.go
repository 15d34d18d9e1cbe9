package openaichat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/novacode/nova/llm/internal/wire"
)

// maxModelsBody caps the models list read by ContextWindow; OpenRouter's,
// the largest, is a few megabytes.
const maxModelsBody = 64 << 20

// modelEntry is one element of GET /models with every field a server in
// this family uses for the context length.
type modelEntry struct {
	ID               string     `json:"id"`
	ContextLength    wire.Count `json:"context_length"`     // OpenRouter, Together, LM Studio-style
	MaxContextLength wire.Count `json:"max_context_length"` // LM Studio
	MaxModelLen      wire.Count `json:"max_model_len"`      // vLLM
	ContextWindow    wire.Count `json:"context_window"`     // Groq
	Meta             *struct {
		NCtx      wire.Count `json:"n_ctx"`
		NCtxTrain wire.Count `json:"n_ctx_train"`
	} `json:"meta"` // llama.cpp
}

// window is the entry's context length, the first field present in the
// order of modelEntry. For llama.cpp, n_ctx (what the server was started
// with) comes before n_ctx_train (what the model was trained for): the
// server rejects prompts beyond n_ctx whatever the model could do.
func (m *modelEntry) window() int {
	for _, v := range []wire.Count{m.ContextLength, m.MaxContextLength, m.MaxModelLen, m.ContextWindow} {
		if v > 0 {
			return int(v)
		}
	}
	if m.Meta != nil {
		if m.Meta.NCtx > 0 {
			return int(m.Meta.NCtx)
		}
		return int(m.Meta.NCtxTrain)
	}
	return 0
}

// ContextWindow asks the endpoint's models API (GET {base}/models) for the
// context length of model. It returns 0 and no error when the endpoint does
// not say: no models API (404), no such model, or none of the known fields
// (OpenAI's own list has none). The model is matched by id, then as
// "models/"+id (Google's naming); a server that lists a single model (a
// llama.cpp or vLLM instance, which ignore the name in requests) answers for
// it whatever the name. Answers are cached per model for the Client's life.
// RequestTimeout bounds the whole call here, as the body is small.
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
	var res *http.Response
	err = c.sdk.Get(call.Context(), "models", nil, &res)
	if res != nil && res.Body != nil {
		defer res.Body.Close()
	}
	if err != nil {
		if res != nil {
			switch res.StatusCode {
			case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
				// No models API here.
				return c.remember(model, 0), nil
			}
		}
		return 0, classify(call, err, res, false)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxModelsBody))
	if err != nil {
		return 0, classify(call, err, nil, false)
	}
	entries, err := parseModels(body)
	if err != nil {
		// Something answered, but not a models list: it does not say.
		return c.remember(model, 0), nil
	}
	return c.remember(model, findWindow(entries, model)), nil
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

// parseModels reads {"data":[…]} (the OpenAI shape) or a bare array.
func parseModels(body []byte) ([]modelEntry, error) {
	t := bytes.TrimSpace(body)
	var entries []modelEntry
	if len(t) > 0 && t[0] == '[' {
		err := json.Unmarshal(t, &entries)
		return entries, err
	}
	var list struct {
		Data []modelEntry `json:"data"`
	}
	if err := json.Unmarshal(t, &list); err != nil {
		return nil, err
	}
	if list.Data == nil {
		return nil, fmt.Errorf("no data member")
	}
	return list.Data, nil
}

func findWindow(entries []modelEntry, model string) int {
	for _, id := range []string{model, "models/" + model} {
		for i := range entries {
			if entries[i].ID == id {
				return entries[i].window()
			}
		}
	}
	if len(entries) == 1 {
		return entries[0].window()
	}
	return 0
}
