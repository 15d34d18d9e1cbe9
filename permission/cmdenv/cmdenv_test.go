package cmdenv_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/permission/cmdenv"
)

func TestIsCredential(t *testing.T) {
	credentials := []string{
		// The model providers' keys, withheld since the start.
		"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "OPENROUTER_API_KEY",
		"GEMINI_API_KEY", "GOOGLE_API_KEY", "AZURE_OPENAI_API_KEY",
		// Forges and CI.
		"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "GITHUB_PAT", "GITLAB_TOKEN",
		"GITLAB_PRIVATE_TOKEN", "CI_JOB_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
		"ACTIONS_ID_TOKEN_REQUEST_URL", "CODECOV_TOKEN", "AZURE_DEVOPS_EXT_PAT",
		// Clouds.
		"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN",
		"GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CREDENTIALS", "GOOGLE_OAUTH_ACCESS_TOKEN",
		"CLOUDSDK_AUTH_ACCESS_TOKEN", "GCLOUD_KEYFILE_JSON", "GOOGLE_CLOUD_KEYFILE_JSON", "AZURE_CLIENT_SECRET",
		"AZURE_CLIENT_CERTIFICATE_PASSWORD", "AZURE_STORAGE_KEY", "AZURE_STORAGE_CONNECTION_STRING",
		"ARM_CLIENT_SECRET", "ARM_ACCESS_KEY", "DIGITALOCEAN_ACCESS_TOKEN", "CLOUDFLARE_API_TOKEN", "HCLOUD_TOKEN",
		"TF_TOKEN_app_terraform_io", "VAULT_TOKEN", "CONSUL_HTTP_TOKEN",
		// Registries and package managers.
		"NPM_TOKEN", "NODE_AUTH_TOKEN", "npm_config__authToken", "npm_config__auth", "NPM_CONFIG__AUTH",
		"npm_config_//registry.npmjs.org/:_authToken", "YARN_NPM_AUTH_TOKEN", "PYPI_TOKEN", "PYPI_API_TOKEN",
		"TWINE_PASSWORD", "POETRY_PYPI_TOKEN_PYPI", "CARGO_REGISTRY_TOKEN", "GEM_HOST_API_KEY", "DOCKER_PASSWORD",
		"DOCKER_AUTH_CONFIG", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN",
		// Chat and other services.
		"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_WEBHOOK_URL", "DISCORD_WEBHOOK_URL",
		"STRIPE_SECRET_KEY", "SENTRY_AUTH_TOKEN", "HEROKU_API_KEY", "KAGGLE_KEY", "RAILS_MASTER_KEY",
		"SECRET_KEY_BASE", "SECRET_KEY", "JWT_SECRET", "CLIENT_SECRETS", "OP_SERVICE_ACCOUNT_TOKEN",
		"OP_SESSION_my", "BW_SESSION", "SOPS_AGE_KEY", "SIGNING_KEY", "PRIVATE_KEY", "SSH_PRIVATE_KEY",
		// Databases and tools.
		"PGPASSWORD", "MYSQL_PWD", "REDISCLI_AUTH", "SSHPASS", "RSYNC_PASSWORD", "BORG_PASSPHRASE",
		"RESTIC_PASSWORD", "KEY", "github_token",
		// Where credentials are: the word says what the file holds.
		"AWS_SHARED_CREDENTIALS_FILE", "ANSIBLE_VAULT_PASSWORD_FILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
	}
	settings := []string{
		"PATH", "HOME", "PWD", "OLDPWD", "SHELL", "TERM", "LANG", "USER", "EDITOR", "NOVA_HOME",
		"ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "OPENAI_BASE_URL", "SSH_AUTH_SOCK", "GPG_AGENT_INFO",
		"GPG_TTY", "XAUTHORITY", "KRB5CCNAME", "GIT_ASKPASS", "SSH_ASKPASS", "AWS_REGION", "AWS_PROFILE",
		"AWS_DEFAULT_REGION", "AZURE_CLIENT_ID", "AZURE_TENANT_ID",
		"GOOGLE_CLOUD_PROJECT", "GPG_KEY_ID", "AWS_KMS_KEY_ID", "SSH_PUBLIC_KEY", "VAPID_PUBLIC_KEY",
		"PASSWORD_STORE_DIR", "PASSWORD_STORE_KEY", "TOKENIZERS_PARALLELISM", "MAX_TOKENS",
		"CLAUDE_CODE_MAX_OUTPUT_TOKENS", "KEYCHAIN", "KEYTIMEOUT", "LESSKEY", "MONKEY", "AUTHOR", "XDG_SESSION_ID",
		"DATABASE_URL", "SENTRY_DSN", "GIT_TERMINAL_PROMPT", "DOCKER_HOST", "KUBECONFIG", "PGPASSFILE",
		"NETRC", "GOPRIVATE", "NODE_ENV", "CI", "",
	}
	for _, name := range credentials {
		if !cmdenv.IsCredential(name) {
			t.Errorf("IsCredential(%q) = false, want true", name)
		}
	}
	for _, name := range settings {
		if cmdenv.IsCredential(name) {
			t.Errorf("IsCredential(%q) = true, want false", name)
		}
	}
}

func TestEnviron(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin", "HOME=/home/u", "GITHUB_TOKEN=ghp_x", "GH_TOKEN=gho_x", "AWS_SECRET_ACCESS_KEY=aws",
		"AWS_ACCESS_KEY_ID=AKIA", "AWS_REGION=eu-west-1", "ANTHROPIC_API_KEY=sk-ant", "NPM_TOKEN=npm_x",
		"SSH_AUTH_SOCK=/run/agent", "A=B=C", "NOEQUALS",
	}
	tests := []struct {
		name        string
		passthrough []string
		want        []string
	}{
		{"nothing passed", nil, []string{"PATH=/usr/bin", "HOME=/home/u", "AWS_REGION=eu-west-1",
			"SSH_AUTH_SOCK=/run/agent", "A=B=C", "NOEQUALS"}},
		{"one name", []string{"GITHUB_TOKEN"}, []string{"PATH=/usr/bin", "HOME=/home/u", "GITHUB_TOKEN=ghp_x",
			"AWS_REGION=eu-west-1", "SSH_AUTH_SOCK=/run/agent", "A=B=C", "NOEQUALS"}},
		{"a prefix", []string{"AWS_*"}, []string{"PATH=/usr/bin", "HOME=/home/u", "AWS_SECRET_ACCESS_KEY=aws",
			"AWS_ACCESS_KEY_ID=AKIA", "AWS_REGION=eu-west-1", "SSH_AUTH_SOCK=/run/agent", "A=B=C", "NOEQUALS"}},
		// Names match as written: the environment is case-sensitive.
		{"another case", []string{"github_token", "aws_*"}, []string{"PATH=/usr/bin", "HOME=/home/u",
			"AWS_REGION=eu-west-1", "SSH_AUTH_SOCK=/run/agent", "A=B=C", "NOEQUALS"}},
		{"everything", []string{"*"}, environ},
		{"empty entries pass nothing", []string{"", "GITHUB"}, []string{"PATH=/usr/bin", "HOME=/home/u",
			"AWS_REGION=eu-west-1", "SSH_AUTH_SOCK=/run/agent", "A=B=C", "NOEQUALS"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, cmdenv.Environ(environ, tt.passthrough)); d != "" {
				t.Errorf("Environ (-want +got):\n%s", d)
			}
		})
	}
}
