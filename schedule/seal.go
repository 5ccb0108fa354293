package schedule

// The seal of every variant; see Schedule.

func (AndThen) _ParsePolicyIsNotAScheduleUseItsScheduleField()        {}
func (Capped) _ParsePolicyIsNotAScheduleUseItsScheduleField()         {}
func (Decorrelated) _ParsePolicyIsNotAScheduleUseItsScheduleField()   {}
func (DecorrelatedV2) _ParsePolicyIsNotAScheduleUseItsScheduleField() {}
func (Exponential) _ParsePolicyIsNotAScheduleUseItsScheduleField()    {}
func (Fibonacci) _ParsePolicyIsNotAScheduleUseItsScheduleField()      {}
func (Forever) _ParsePolicyIsNotAScheduleUseItsScheduleField()        {}
func (Intersect) _ParsePolicyIsNotAScheduleUseItsScheduleField()      {}
func (Jittered) _ParsePolicyIsNotAScheduleUseItsScheduleField()       {}
func (Linear) _ParsePolicyIsNotAScheduleUseItsScheduleField()         {}
func (ResetAfter) _ParsePolicyIsNotAScheduleUseItsScheduleField()     {}
func (Random) _ParsePolicyIsNotAScheduleUseItsScheduleField()         {}
func (Spaced) _ParsePolicyIsNotAScheduleUseItsScheduleField()         {}
func (Sum) _ParsePolicyIsNotAScheduleUseItsScheduleField()            {}
func (Times) _ParsePolicyIsNotAScheduleUseItsScheduleField()          {}
func (Union) _ParsePolicyIsNotAScheduleUseItsScheduleField()          {}
func (UpTo) _ParsePolicyIsNotAScheduleUseItsScheduleField()           {}
func (WhileBelow) _ParsePolicyIsNotAScheduleUseItsScheduleField()     {}
