package breaker

// NewExact is New with a window that reads the clock for every call, so
// that its counts can be compared with an exact model.
func NewExact(c Config) (*Breaker, error) {
	s, err := resolve(c)
	if err != nil {
		return nil, err
	}
	return build(&s, s.Name, true), nil
}
