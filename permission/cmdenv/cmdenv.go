// Package cmdenv decides which of NovaCode's environment variables reach
// the commands it runs for the model and the user: the Bash tool's
// (sandboxed or not) and the TUI's !cmd.
//
// Credentials are withheld. A command the model writes may have been
// talked into by text it read (a README, an issue, a web page), and
// `env`, `curl -d "$GITHUB_TOKEN"` or a test script printing its
// environment would hand the user's tokens to the model, its provider's
// logs, or whoever wrote that text. The OS sandbox does not help: it
// confines files and the network, not what a process is given. So a
// credential reaches commands only when the user's own settings pass it
// through (internal/config: "env": {"passthrough": [...]}).
//
// What counts as a credential is a rule on the name (IsCredential), not a
// list of the services we know: the names people give secrets follow
// conventions (*_TOKEN, *_API_KEY, *_SECRET, *_PASSWORD), and a rule also
// covers the next service. Values are not inspected: DATABASE_URL with a
// password in it passes, as any name that does not say what it holds.
package cmdenv

import (
	"slices"
	"strings"
)

// Environ returns environ (NAME=value entries, as os.Environ gives them)
// without the credentials that passthrough does not name.
func Environ(environ, passthrough []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !Withheld(name, passthrough) {
			out = append(out, kv)
		}
	}
	return out
}

// Withheld reports whether commands do not get the variable name: it is a
// credential and passthrough does not name it. Entries of passthrough are
// names (GITHUB_TOKEN) or prefixes ending in * (AWS_*), matched as
// written.
func Withheld(name string, passthrough []string) bool {
	if !IsCredential(name) {
		return false
	}
	for _, p := range passthrough {
		if p == name || strings.HasSuffix(p, "*") && strings.HasPrefix(name, p[:len(p)-1]) {
			return false
		}
	}
	return true
}

// IsCredential reports whether the variable name, by its name, holds a
// credential. The name is read in upper case and split into words at
// every character that is not a letter or a digit (npm's
// npm_config_//registry.npmjs.org/:_authToken included). It is one:
//
//   - when a word anywhere says so: TOKEN, SECRET, PASSWORD, PASSWD,
//     PASSPHRASE, CREDENTIAL, APIKEY, AUTHTOKEN (and their plurals);
//     GITHUB_TOKEN, TF_TOKEN_app_terraform_io, SECRET_KEY_BASE,
//     GOOGLE_APPLICATION_CREDENTIALS;
//   - when its last words name one: KEY (OPENAI_API_KEY, ACCESS_KEY,
//     PRIVATE_KEY), AUTH (REDISCLI_AUTH, npm's _auth), PAT (GITHUB_PAT), PWD
//     after another word (MYSQL_PWD; not PWD itself), ACCESS_KEY_ID,
//     WEBHOOK_URL (a Slack webhook is its own secret), CONNECTION_STRING
//     (Azure's hold the account key), KEYFILE_JSON;
//   - when it is a known credential whose name says nothing: PGPASSWORD,
//     SSHPASS, BW_SESSION, OP_SESSION_*, DOCKER_AUTH_CONFIG;
//
// except the look-alikes that are settings: *_PUBLIC_KEY and
// PASSWORD_STORE_* (pass's configuration).
func IsCredential(name string) bool {
	up := strings.ToUpper(name)
	if slices.Contains(knownCredentials, up) || strings.HasPrefix(up, "OP_SESSION_") {
		return true
	}
	if strings.HasPrefix(up, "PASSWORD_STORE_") {
		return false
	}
	words := strings.FieldsFunc(up, func(r rune) bool { return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') })
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if secretWords[w] {
			return true
		}
	}
	last := words[len(words)-1]
	switch {
	case last == "KEY":
		return len(words) < 2 || words[len(words)-2] != "PUBLIC"
	case last == "AUTH", last == "PAT":
		return true
	case last == "PWD":
		return len(words) > 1
	}
	for _, tail := range secretTails {
		if endsWith(words, tail) {
			return true
		}
	}
	return false
}

// secretWords say, wherever they stand in a name, that it holds a secret.
// Not TOKENS, which counts them (MAX_TOKENS).
var secretWords = map[string]bool{
	"TOKEN": true, "SECRET": true, "SECRETS": true, "PASSWORD": true, "PASSWORDS": true, "PASSWD": true, "PASSPHRASE": true,
	"CREDENTIAL": true, "CREDENTIALS": true, "APIKEY": true, "AUTHTOKEN": true,
}

// secretTails are last words that, together, name a secret.
var secretTails = [][]string{
	{"ACCESS", "KEY", "ID"}, {"WEBHOOK", "URL"}, {"CONNECTION", "STRING"}, {"KEYFILE", "JSON"},
}

// knownCredentials are credentials whose names do not say so.
var knownCredentials = []string{"PGPASSWORD", "SSHPASS", "BW_SESSION", "DOCKER_AUTH_CONFIG"}

func endsWith(words, tail []string) bool {
	return len(words) >= len(tail) && slices.Equal(words[len(words)-len(tail):], tail)
}
