package capture

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ledger-audit/ledger-audit/rules/policy"
)

// LoadEngine builds the policy engine capture enforces for the ledger in
// dir: the built-in default pack, or the user's policy.yaml when present.
func LoadEngine(dir string) (*policy.Engine, error) {
	p := filepath.Join(dir, PolicyFile)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return policy.Default()
	} else if err != nil {
		return nil, err
	}
	return nil, errors.New(p + ": custom policy files are not supported by this build")
}
