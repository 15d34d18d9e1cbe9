package llm

import (
	"context"
	"iter"
)

// bytesPerToken is the rough size of a token in English text and code; good
// enough to keep cost and context figures in the right order of magnitude
// when an endpoint reports nothing.
const bytesPerToken = 4

// WithUsageEstimate wraps c so that a stream whose StreamEnd carries no usage
// at all (some compatible endpoints send none) gets an estimate from the
// request and response sizes, marked Estimated.
func WithUsageEstimate(c Client) Client { return estimateClient{c} }

type estimateClient struct{ c Client }

func (e estimateClient) Stream(ctx context.Context, req *Request) iter.Seq2[StreamEvent, error] {
	return func(yield func(StreamEvent, error) bool) {
		out := 0
		for ev, err := range e.c.Stream(ctx, req) {
			switch x := ev.(type) {
			case TextDelta:
				out += len(x.Text)
			case ThinkingDelta:
				out += len(x.Text)
			case ToolCallComplete:
				out += len(x.Input) + len(x.Name)
			case StreamEnd:
				// A count of searches is no token figure: an endpoint
				// that reported only that still reported no usage.
				if tokens := x.Usage; (Usage{WebSearchRequests: tokens.WebSearchRequests}) == tokens {
					x.Usage = Usage{
						InputTokens:       int64(EstimateTokens(req)),
						OutputTokens:      int64((out + bytesPerToken - 1) / bytesPerToken),
						WebSearchRequests: tokens.WebSearchRequests,
						Estimated:         true,
					}
					ev = x
				}
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// EstimateTokens is a rough token count of everything req sends.
func EstimateTokens(req *Request) int {
	n := len(req.System)
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema)
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			switch b.Type {
			case BlockImage:
				n += 1600 * bytesPerToken // images cost about this much on most providers
			default:
				// A server tool result's Raw is what the provider reads
				// (a search's page contents, encrypted): it counts too.
				n += len(b.Text) + len(b.Input) + len(b.Content) + len(b.ToolName) + len(b.Raw)
			}
		}
	}
	return (n + bytesPerToken - 1) / bytesPerToken
}
