package chaos

// OperatorRestart replaces the operator by a fresh instance.
type OperatorRestart struct{}

// Name implements Fault.
func (OperatorRestart) Name() string { return "operator-restart" }

// Apply implements Fault.
func (OperatorRestart) Apply(t Target, _ string) error {
	t.RestartOperator()
	return nil
}
