// Package wire is what the provider adapters (llm/anthropic, llm/openai,
// llm/openaichat) do alike, whatever their protocol: keeping each message's
// wire encoding between requests (Cache, with a Codec per protocol), sending
// JSON requests and reading server-sent events (HTTP, SSE), running a call
// and its stream under the llm.Client contract (Endpoint, Call, Pump), and
// telling failures apart (Call.Classify, StatusKind, RetryAfter,
// Transport). An adapter keeps only what its protocol decides: how
// messages, events and error bodies look on the wire and what they mean.
//
// It knows no provider, with one exception both OpenAI adapters share: the
// OpenAI-style models list that compatible servers serve
// (HTTP.ListedWindow). Nothing here is visible outside llm.
package wire
