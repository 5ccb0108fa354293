package pgretry_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/recur-go/recur/breaker"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/verdict"
)

// TestClassify covers the table in Classify's documentation with errors
// made by hand; the tests against the server check that pgx produces
// them.
func TestClassify(t *testing.T) {
	pg := func(code string) error { return fmt.Errorf("exec: %w", &pgconn.PgError{Code: code}) }
	type out struct {
		V    verdict.Verdict
		Code string
	}
	tests := []struct {
		name string
		err  error
		want out
	}{
		{"nil", nil, out{verdict.Success, ""}},
		{"open", &breaker.OpenError{Name: "postgres", State: breaker.Open}, out{verdict.Neutral, "circuit_open"}},
		{"marked in tx", pgretry.ErrMarkedInTx, out{verdict.Neutral, "marked_in_tx"}},
		{"canceled", fmt.Errorf("x: %w", context.Canceled), out{verdict.Neutral, "canceled"}},
		{"deadline", context.DeadlineExceeded, out{verdict.Transient, "attempt_timeout"}},
		{"bad conn", driver.ErrBadConn, out{verdict.Transient, "unreachable"}},
		{"commit unknown", pgretry.ErrCommitUnknown, out{verdict.Failure, "commit_unknown"}},
		{"commit unknown, canceled", fmt.Errorf("%w: %w", pgretry.ErrCommitUnknown, context.Canceled), out{verdict.Failure, "commit_unknown"}},
		{"refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, out{verdict.Transient, "unreachable"}},
		{"dns", &net.DNSError{Err: "no such host", Name: "db"}, out{verdict.Transient, "unreachable"}},
		{"eof", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), out{verdict.Transient, "unreachable"}},
		{"conn closed", pgconn.ErrConnClosed, out{verdict.Transient, "unreachable"}},
		{"08006", pg("08006"), out{verdict.Transient, "unreachable"}},
		{"57P01", pg("57P01"), out{verdict.Transient, "shutdown"}},
		{"57P02", pg("57P02"), out{verdict.Transient, "shutdown"}},
		{"57P03", pg("57P03"), out{verdict.Transient, "shutdown"}},
		{"53300", pg("53300"), out{verdict.Transient, "too_many_connections"}},
		{"40001", pg("40001"), out{verdict.Retryable, "serialization_failure"}},
		{"40P01", pg("40P01"), out{verdict.Retryable, "deadlock"}},
		{"57014", pg("57014"), out{verdict.Neutral, "statement_timeout"}},
		{"23505", pg("23505"), out{verdict.Neutral, "database_error"}},
		{"42601", pg("42601"), out{verdict.Neutral, "database_error"}},
		{"short code", pg("08"), out{verdict.Neutral, "database_error"}},
		{"pgx no rows", pgx.ErrNoRows, out{verdict.Neutral, "no_rows"}},
		{"sql no rows", sql.ErrNoRows, out{verdict.Neutral, "no_rows"}},
		{"other", errors.New("cannot scan"), out{verdict.Neutral, "error"}},
	}
	for _, tt := range tests {
		got := out{pgretry.Classify(tt.err), pgretry.Code(tt.err)}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: %v (-want +got):\n%s", tt.name, tt.err, diff)
		}
	}
}

func ExampleClassify() {
	for _, err := range []error{
		&pgconn.PgError{Code: "40001"}, // serialization failure
		&pgconn.PgError{Code: "23505"}, // unique violation
		&pgconn.PgError{Code: "57P01"}, // admin shutdown
		&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED},
	} {
		fmt.Printf("%-9s %s\n", pgretry.Classify(err), pgretry.Code(err))
	}
	// Output:
	// retryable serialization_failure
	// neutral   database_error
	// transient shutdown
	// transient unreachable
}
