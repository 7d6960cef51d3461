package redact

import (
	"strings"
	"testing"
)

func TestRedactsSecretShapes(t *testing.T) {
	cases := []struct{ in, secret string }{
		{`curl -H "Authorization: Bearer abcdef123456" https://api.x`, "abcdef123456"},
		{`export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, "wJalrXUtnFEMI"},
		{`aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE`, "AKIAIOSFODNN7EXAMPLE"},
		{`git clone https://ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789@github.com/x/y`, "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
		{`SLACK=xoxb-123456789012-abcdefghijkl`, "xoxb-123456789012-abcdefghijkl"},
		{`https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage`, "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"},
		{`mysql -u root --password=hunter22 db`, "hunter22"},
		{`gh auth login --token ghx8d7f6e5d4c3b2a1 --hostname github.com`, "ghx8d7f6e5d4c3b2a1"},
		{`{"api_key": "sk-ant-abcdefghijklmnopqrstuvwx"}`, "sk-ant-abcdefghijklmnopqrstuvwx"},
		{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAA"},
		{`git remote add o https://bob:s3cr3tpw@example.com/r.git`, "s3cr3tpw"},
	}
	for _, c := range cases {
		got := String(c.in)
		if strings.Contains(got, c.secret) {
			t.Errorf("String(%q) = %q still holds the secret", c.in, got)
		}
		if !strings.Contains(got, Mask) {
			t.Errorf("String(%q) = %q has no mask", c.in, got)
		}
	}
}

func TestLeavesOrdinaryTextAlone(t *testing.T) {
	for _, s := range []string{
		`rm -rf ./build`,
		`cat ~/.aws/credentials`,
		`go test ./... -run TestToken`,
		`git push origin feature/tokenizer`,
		`{"path":"src/auth/login.go","content":"package auth"}`,
		`Use the credential through its tool (ssh, aws, gh) instead of reading it.`,
		`the token expired; refresh the secret rotation schedule`,
	} {
		if got := String(s); got != s {
			t.Errorf("String(%q) = %q, want unchanged", s, got)
		}
	}
	if got := (Redactor{Off: true}).String("password=hunter22"); got != "password=hunter22" {
		t.Errorf("disabled redactor changed text: %q", got)
	}
}
