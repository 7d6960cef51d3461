package analyze

import (
	"encoding/json"
	"time"
)

// Duration marshals as a Go duration string ("2m0s") so JSON stays
// readable and round-trips exactly.
type Duration time.Duration

// MarshalJSON renders the duration as text.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON parses the text form.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}
