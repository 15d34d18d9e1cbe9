package anthropic

import (
	"net/http"
	"testing"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// The encoding cache's checks that do not depend on the protocol are
// llmtest.CacheSuite's; this file supplies what they need of this package.

// testBaseURL returns the endpoint of the test clients for seed: the
// default one for all.
func testBaseURL(seed uint64) string {
	return ""
}

// decorated returns the index of the message whose encoding depends on its
// position, or -1: the last user message carries the prompt-caching
// breakpoint.
func decorated(msgs []llm.Message) int {
	return lastUser(msgs)
}

// cacheSuite runs the shared checks against this package's Client: a
// caching one and one with the cache disabled, which encodes every message
// on every call.
var cacheSuite = &llmtest.CacheSuite{
	Response: okStream,
	NewClients: func(seed uint64, cached, uncached http.RoundTripper) (llm.Client, llm.Client) {
		c := captureClient(cached, testBaseURL(seed))
		plain := captureClient(uncached, testBaseURL(seed))
		plain.cache = nil
		return c, plain
	},
	Fresh:     func(c llm.Client) []bool { return c.(*Client).cache.Fresh() },
	Decorated: decorated,
}

// captureClient returns a Client whose requests go to rt instead of a
// network. baseURL may be empty (the default endpoint).
func captureClient(rt http.RoundTripper, baseURL string) *Client {
	return New(Options{APIKey: "test-key", BaseURL: baseURL, HTTPClient: &http.Client{Transport: rt}})
}

// TestEncodingCacheMatchesUncached drives long random histories through
// turns, edits, reordering and truncation (llmtest.CacheSuite.MatchesUncached).
func TestEncodingCacheMatchesUncached(t *testing.T) { cacheSuite.MatchesUncached(t) }

// TestEncodingCacheRecordedRequests compares the cached and uncached bodies
// of every recorded request and of fullRequest, sent twice.
func TestEncodingCacheRecordedRequests(t *testing.T) {
	cacheSuite.RecordedRequests(t, fixtureDir, requestFromRecording, map[string]*llm.Request{"fullRequest": fullRequest()})
}

// TestEncodingCacheErrors checks that an invalid message fails the call as
// it does without the cache, and leaves nothing behind.
func TestEncodingCacheErrors(t *testing.T) { cacheSuite.Errors(t) }

// TestEncodingCacheConcurrent sends different histories through one Client
// from several goroutines (run it with -race).
func TestEncodingCacheConcurrent(t *testing.T) { cacheSuite.Concurrent(t) }

// TestSpliceMarkerInSchema puts the marker that stands for the messages in
// the envelope into a tool schema too; the body must still be right.
func TestSpliceMarkerInSchema(t *testing.T) { cacheSuite.SpliceMarkerInSchema(t) }
