package policy

// PLACEHOLDER until the engine lands (see api.go): these definitions only
// let dependent packages compile. The engine replaces this file.

// Pack is a named, versioned set of rules.
type Pack struct {
	Name    string
	Version string
}

type sessionState struct{}

func (r *Replay) observe(_ any) []Hit { return nil }

// Default returns an engine over the built-in default pack.
func Default() (*Engine, error) { return &Engine{}, nil }
