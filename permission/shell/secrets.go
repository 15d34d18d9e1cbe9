package shell

// Secrets, as their names tell: the files whose contents sent over the
// network are a leak. The analyser never opens files, so this is the
// lexical half of pathguard's secret check (which the chain applies to
// reads as well).

import (
	"slices"
	"strings"
)

// homeSecrets are, relative to a home directory, the directories and
// files that hold credentials.
var homeSecrets = [][]string{
	{".ssh"}, {".aws"}, {".gnupg"}, {".config", "gcloud"}, {".kube"}, {".docker", "config.json"}, {".netrc"},
	{".git-credentials"}, {".npmrc"}, {".pypirc"}, {".config", "gh"}, {".azure"}, {".vault-token"}, {".pgpass"},
	{".my.cnf"}, {".terraform.d", "credentials.tfrc.json"}, {".config", "hub"}, {".cargo", "credentials.toml"},
	{".cargo", "credentials"}, {".gem", "credentials"}, {".password-store"}, {".local", "share", "keyrings"},
}

// envExamples are .env.* names that hold no secrets by convention.
var envExamples = set(".env.example", ".env.sample", ".env.template", ".env.dist")

// secretPath says why the absolute path a names a secret, or "".
func (z *analyzer) secretPath(a string) string {
	parts := normParts(a)
	if len(parts) == 0 {
		return ""
	}
	last := parts[len(parts)-1]
	if strings.HasSuffix(last, ".pub") || strings.HasPrefix(last, "known_hosts") || strings.HasPrefix(last, "authorized_keys") {
		return "" // public keys and host lists are meant to be shared
	}
	switch {
	case last == ".env" || strings.HasPrefix(last, ".env.") && !envExamples[last]:
		return a + " is an environment file, which usually holds credentials"
	case strings.HasPrefix(last, "id_rsa") || strings.HasPrefix(last, "id_ed25519") || strings.HasPrefix(last, "id_ecdsa") ||
		strings.HasPrefix(last, "id_dsa"):
		return a + " is an SSH key"
	case strings.HasSuffix(last, ".pem") || strings.HasSuffix(last, ".key") || strings.HasSuffix(last, ".p12") ||
		strings.HasSuffix(last, ".pfx") || strings.HasSuffix(last, ".jks") || strings.HasSuffix(last, ".keystore"):
		return a + " is a key or certificate file"
	case a == "/etc/shadow" || a == "/etc/gshadow" || strings.HasPrefix(a, "/etc/ssh/ssh_host_") && !strings.HasSuffix(a, ".pub"):
		return a + " holds the system's password hashes or host keys"
	case a == "/proc/self/environ" || strings.HasPrefix(a, "/proc/") && last == "environ":
		return a + " is a process's environment, which holds its tokens"
	}
	if home := z.homeOf(a); home != "" {
		rel := normParts(strings.TrimPrefix(a, home))
		for _, s := range homeSecrets {
			if len(rel) >= len(s) && slices.Equal(rel[:len(s)], s) {
				return a + " holds credentials (~/" + strings.Join(s, "/") + ")"
			}
		}
	}
	return ""
}

// secretWord says why a word names a secret in any directory the command
// may be in, or "".
func (z *analyzer) secretWord(w wordInfo, st state) string {
	for _, v := range writeValues(w) {
		if v == "" {
			continue
		}
		for _, a := range z.absPaths(v, st) {
			if r := z.secretPath(a); r != "" {
				return r
			}
			if z.sink.tainted[a] {
				return a + " holds secrets this command copied there"
			}
		}
	}
	return ""
}
