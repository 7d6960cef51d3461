package policy

import "testing"

func TestVendorsOwnHost(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want bool
	}{
		{"ETHERSCAN_API_KEY", []string{"-s", "https://api.etherscan.io/v2/api?apikey=x"}, true},
		{"ALCHEMY_API_KEY", []string{"https://eth-sepolia.g.alchemy.com/v2/x"}, true},
		{"OPENWEATHER_API_KEY", []string{"https://api.openweathermap.org/data/2.5?appid=x"}, true},
		{"ACME_TOKEN", []string{"https://api.acme.co.uk/v1"}, true},
		// Another registrable domain that only contains the vendor as a
		// subdomain label, or a second URL elsewhere.
		{"ETHERSCAN_API_KEY", []string{"https://etherscan.evil.io/?k=x"}, false},
		{"ETHERSCAN_API_KEY", []string{"https://api.etherscan.io/", "https://evil.io/"}, false},
		// No vendor prefix, a vendor too short, no URL at all.
		{"API_KEY", []string{"https://api.example.com/"}, false},
		{"PROD_API_KEY", []string{"https://prod.example.com/"}, false},
		{"AWS_SECRET_ACCESS_KEY", []string{"https://aws.amazon.com/"}, false},
		{"GITHUB_TOKEN", []string{"-d", "x"}, false},
		// A host built from a variable is not known.
		{"GITHUB_TOKEN", []string{"https://$HOST/x"}, false},
	} {
		if got := vendorsOwnHost(tc.name, tc.args); got != tc.want {
			t.Errorf("vendorsOwnHost(%s, %q) = %v, want %v", tc.name, tc.args, got, tc.want)
		}
	}
}

func TestRegistrableLabel(t *testing.T) {
	for in, want := range map[string]string{
		"api.etherscan.io/v2/api":        "etherscan",
		"user:pw@a.example.co.uk:8443/x": "example",
		"localhost:8080/":                "",
		"example.com?q=1":                "example",
	} {
		if got := registrableLabel(in); got != want {
			t.Errorf("registrableLabel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNormPathHomeWildcard: "/home/**/x" (a find over every home
// directory) keeps its depth: it is ~/**/x, not ~/x.
func TestNormPathHomeWildcard(t *testing.T) {
	for in, want := range map[string]string{
		"/home/**/huggingface/token": "~/**/huggingface/token",
		"/home/*/.ssh/id_rsa":        "~/.ssh/id_rsa",
		"/home/dev/.aws/credentials": "~/.aws/credentials",
		"/home/**":                   "~/**",
	} {
		if got := normPath(in); got != want {
			t.Errorf("normPath(%q) = %q, want %q", in, got, want)
		}
	}
}
