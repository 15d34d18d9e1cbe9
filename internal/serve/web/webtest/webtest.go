// Package webtest runs the web client in a real headless Chromium for
// tests, driven from Go with chromedp: the browser's launch flags that work
// on a machine without network, and screenshots kept as test artefacts.
//
// Only tests import it. It lives apart from package web so that neither the
// client nor nova links chromedp.
package webtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium returns the browser's path: $NOVA_CHROMIUM, else chromium (Debian's
// package) or another Chrome on PATH. Without one the test is skipped, or
// fails under CI=true, where the browser tests must run (.ci/run installs
// chromium).
func Chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("NOVA_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	why := "chromium is not installed (apt-get install chromium)"
	if os.Getenv("CI") == "true" {
		t.Fatal(why + " (CI=true: the browser tests must run)")
	}
	t.Skip(why)
	return ""
}

// Browser starts a headless Chromium with a fresh profile and returns a
// context for one tab; everything ends with the test. The flags keep a
// browser on a machine without network from waiting on background
// services (without them it misbehaves here).
func Browser(t testing.TB) context.Context {
	t.Helper()
	path := Chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		done, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = chromedp.Cancel(done)
		cancelTab()
		cancelAlloc()
	})
	// Start the browser now, so a launch failure names itself.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return ctx
}

// ArtifactDir is where a package's tests keep what a person looks at after a
// run: $NOVA_TEST_ARTIFACTS, else testdata/artifacts of the package (ignored
// by git). t.TempDir would be deleted with the test.
func ArtifactDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("NOVA_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("testdata", "artifacts")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		t.Fatal(err)
	}
	return abs
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Screenshot saves the page as a PNG named after the test and name in
// ArtifactDir, logs its path, and returns it. A failure to take it fails
// the test.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG, else JPEG
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	file := filepath.Join(ArtifactDir(t), unsafeName.ReplaceAllString(t.Name()+"-"+name, "_")+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", file)
	return file
}

// Eval evaluates expr in the page and returns its value as T; an error
// fails the test.
func Eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// WaitJS polls expr (a JavaScript expression) in the page until it is
// true, for at most timeout; the test fails with what describe (another
// expression, for the failure message) says then.
func WaitJS(t testing.TB, ctx context.Context, timeout time.Duration, expr, describe string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		if err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			var what any
			if describe != "" {
				what, _ = chromedp.Run(ctx, chromedp.Evaluate[any](describe))
			}
			Screenshot(t, ctx, "timeout")
			t.Fatalf("timed out after %s waiting for %s\n%v", timeout, expr, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
