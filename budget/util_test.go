package budget_test

import "strconv"

func strconvFormat(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }
