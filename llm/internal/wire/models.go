package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// The models list of the OpenAI-style APIs (GET {base}/models), which
// OpenAI and every server imitating it serve, the latter often with the
// context length OpenAI's own list lacks. Both OpenAI adapters read it.

// maxModelsBody caps the models list read; OpenRouter's, the largest, is a
// few megabytes.
const maxModelsBody = 64 << 20

// modelEntry is one element of the list with every field a server uses for
// the context length.
type modelEntry struct {
	ID               string `json:"id"`
	ContextLength    Count  `json:"context_length"`     // OpenRouter, Together, LM Studio-style
	MaxContextLength Count  `json:"max_context_length"` // LM Studio
	MaxModelLen      Count  `json:"max_model_len"`      // vLLM
	ContextWindow    Count  `json:"context_window"`     // Groq
	Meta             *struct {
		NCtx      Count `json:"n_ctx"`
		NCtxTrain Count `json:"n_ctx_train"`
	} `json:"meta"` // llama.cpp
}

// window is the entry's context length, the first field present in the
// order of modelEntry. For llama.cpp, n_ctx (what the server was started
// with) comes before n_ctx_train (what the model was trained for): the
// server rejects prompts beyond n_ctx whatever the model could do.
func (m *modelEntry) window() int {
	for _, v := range []Count{m.ContextLength, m.MaxContextLength, m.MaxModelLen, m.ContextWindow} {
		if v > 0 && v < 1<<31 {
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

// ListedWindow asks the endpoint's models list for model's context length.
// It returns 0 and no error when the endpoint does not say: no models list
// (404, 405, 501, or an answer that is not one), no such model, or none of
// the known fields. The model is matched by id, then as "models/"+id
// (Google's naming); a server that lists a single model (a llama.cpp or
// vLLM instance, which ignore the name in requests) answers for it whatever
// the name. Other failures are returned as they are, for the adapter to
// classify.
func (h *HTTP) ListedWindow(ctx context.Context, model string) (int, error) {
	res, err := h.Do(ctx, http.MethodGet, "models", nil, "application/json")
	if err != nil {
		var se *StatusError
		if errors.As(err, &se) {
			switch se.StatusCode {
			case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
				return 0, nil
			}
		}
		return 0, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxModelsBody))
	if err != nil {
		return 0, err
	}
	entries, err := parseModels(body)
	if err != nil {
		return 0, nil
	}
	return findWindow(entries, model), nil
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
		return nil, errors.New("no data member")
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
