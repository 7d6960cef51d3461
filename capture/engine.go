package capture

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ledger-audit/ledger-audit/rules/policy"
)

// LoadEngine builds the policy engine capture applies to the ledger in
// dir: the built-in default pack, followed by the user's policy.yaml next
// to the ledger when there is one (its rules add to the default's; a call
// is refused if any block rule of either matches).
func LoadEngine(dir string) (*policy.Engine, error) {
	def, err := policy.Builtin("default")
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, PolicyFile)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return policy.NewEngine(def), nil
	}
	user, err := policy.LoadFile(p)
	if err != nil {
		return nil, err
	}
	return policy.NewEngine(def, user), nil
}
