package failuretable

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/nats-io/nats.go"
	"github.com/redis/go-redis/v9"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/recur-go/recur/grpcretry"
	"github.com/recur-go/recur/httpretry"
	"github.com/recur-go/recur/mongorecur"
	"github.com/recur-go/recur/natsretry"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/redisretry"
	"github.com/recur-go/recur/retry"
	"github.com/recur-go/recur/schedule"
	"github.com/recur-go/recur/verdict"
)

// The errors of the rows, as the drivers return them.
var (
	errRefused = &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	errReset   = &net.OpError{Op: "read", Net: "tcp", Err: &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}}
	errTLS     = &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}
	errNoHost  = &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "db.example", IsNotFound: true}}
)

// timeoutMethodOnly is an error with a Timeout method and nothing else:
// not a net.Error, as some drivers and proxies return (go-redis treats one
// as a network error).
type timeoutMethodOnly struct{}

func (timeoutMethodOnly) Error() string { return "operation timed out" }
func (timeoutMethodOnly) Timeout() bool { return true }

// redisReply is an error reply of a Redis server, as go-redis returns one
// (a redis.Error).
type redisReply string

func (e redisReply) Error() string { return string(e) }
func (redisReply) RedisError()     {}

// adapters are the columns: for each row the adapter meets, the verdict
// its classifier gives.
var adapters = map[string]map[string]func(t *testing.T) verdict.Verdict{
	"httpretry": {
		"refused":         httpErr(errRefused),
		"reset":           httpErr(errReset),
		"tls":             httpErr(errTLS),
		"no-host":         httpErr(errNoHost),
		"attempt-timeout": httpTimeout,
		"timeout-method":  httpErr(timeoutMethodOnly{}),
		"http-408":        httpStatus(408),
		"http-429":        httpStatus(429),
		"http-4xx":        httpStatus(404),
		"http-500":        httpStatus(500),
		"http-502":        httpStatus(502),
		"http-503":        httpStatus(503),
		"http-504":        httpStatus(504),
	},
	"grpcretry": {
		"refused":          grpcErr(status.Error(codes.Unavailable, "connection error: dial tcp: connect: connection refused")),
		"reset":            grpcErr(status.Error(codes.Unavailable, "error reading from server: read: connection reset by peer")),
		"attempt-timeout":  grpcTimeout,
		"grpc-unavailable": grpcErr(status.Error(codes.Unavailable, "unavailable")),
		"grpc-deadline":    grpcErr(status.Error(codes.DeadlineExceeded, "deadline exceeded")),
		"grpc-app":         grpcErr(status.Error(codes.InvalidArgument, "invalid argument")),
		"grpc-exhausted":   grpcErr(status.Error(codes.ResourceExhausted, "quota")),
	},
	"pgretry": {
		"refused":           pg(errRefused),
		"reset":             pg(errReset),
		"tls":               pg(errTLS),
		"no-host":           pg(errNoHost),
		"attempt-timeout":   pg(context.DeadlineExceeded),
		"timeout-method":    pg(timeoutMethodOnly{}),
		"db-unreachable":    pg(&pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}),
		"unique-violation":  pg(&pgconn.PgError{Code: "23505", Message: "duplicate key value violates unique constraint"}),
		"syntax":            pg(&pgconn.PgError{Code: "42601", Message: "syntax error"}),
		"statement-timeout": pg(&pgconn.PgError{Code: "57014", Message: "canceling statement due to statement timeout"}),
		"pool-timeout":      pg(fmt.Errorf("acquire: %w", pgretry.ErrPoolTimeout)),
	},
	"redisretry": {
		"refused":         rd(errRefused),
		"reset":           rd(errReset),
		"tls":             rd(errTLS),
		"no-host":         rd(errNoHost),
		"attempt-timeout": rd(&net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}),
		"timeout-method":  rd(timeoutMethodOnly{}),
		"db-unreachable":  rd(redisReply("LOADING Redis is loading the dataset in memory")),
		"syntax":          rd(redisReply("ERR syntax error")),
		"pool-timeout":    rd(redis.ErrPoolTimeout),
		"readonly":        rd(redisReply("READONLY You can't write against a read only replica.")),
		"noreplicas":      rd(redisReply("NOREPLICAS Not enough good replicas to write.")),
		"max-clients":     rd(redisReply("ERR max number of clients reached")),
	},
	"natsretry": {
		"attempt-timeout": nt(nats.ErrTimeout),
		"no-responders":   nt(nats.ErrNoResponders),
	},
	"mongorecur": {
		"refused":          mg(errRefused),
		"reset":            mg(errReset),
		"tls":              mg(errTLS),
		"no-host":          mg(errNoHost),
		"attempt-timeout":  mg(context.DeadlineExceeded),
		"timeout-method":   mg(timeoutMethodOnly{}),
		"db-unreachable":   mg(topology.ServerSelectionError{Wrapped: errRefused}),
		"unique-violation": mg(mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 11000, Message: "E11000 duplicate key error"}}}),
		"syntax":           mg(mongo.CommandError{Code: 9, Name: "FailedToParse", Message: "bad query"}),
		"pool-timeout":     mg(topology.WaitQueueTimeoutError{Wrapped: context.DeadlineExceeded}),
	},
}

func pg(err error) func(*testing.T) verdict.Verdict {
	return func(*testing.T) verdict.Verdict { return pgretry.Classify(err) }
}
func rd(err error) func(*testing.T) verdict.Verdict {
	return func(*testing.T) verdict.Verdict { return redisretry.Classify(err) }
}
func nt(err error) func(*testing.T) verdict.Verdict {
	return func(*testing.T) verdict.Verdict { return natsretry.Classify(err) }
}
func mg(err error) func(*testing.T) verdict.Verdict {
	return func(*testing.T) verdict.Verdict { return mongorecur.Classify(err) }
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// httpVerdict makes one GET (a request that may be repeated) through a
// Transport whose Base is base and returns the verdict of its attempt.
func httpVerdict(t *testing.T, base http.RoundTripper, timeout time.Duration) verdict.Verdict {
	t.Helper()
	var got verdict.Verdict
	tr := &httpretry.Transport{Base: base, Policy: schedule.Times{N: 1}, Options: retry.Options{Unthrottled: true, AttemptTimeout: timeout,
		Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
			if e.Kind == retry.Attempted {
				got = e.Verdict
			}
		})}}
	req, err := http.NewRequest("GET", "http://api.example.test/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := tr.RoundTrip(req); err == nil {
		resp.Body.Close()
	}
	return got
}

func httpErr(err error) func(*testing.T) verdict.Verdict {
	return func(t *testing.T) verdict.Verdict {
		return httpVerdict(t, roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, err }), 0)
	}
}

func httpStatus(code int) func(*testing.T) verdict.Verdict {
	return func(t *testing.T) verdict.Verdict {
		return httpVerdict(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: code, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
		}), 0)
	}
}

func httpTimeout(t *testing.T) verdict.Verdict {
	return httpVerdict(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
		<-r.Context().Done()
		return nil, r.Context().Err()
	}), 10*time.Millisecond)
}

// grpcVerdict makes one unary call through grpcretry's interceptor, with
// the default retried codes (UNAVAILABLE), whose invoker is invoke, and
// returns the verdict of its attempt.
func grpcVerdict(t *testing.T, invoke grpc.UnaryInvoker, timeout time.Duration) verdict.Verdict {
	t.Helper()
	var got verdict.Verdict
	ic, err := grpcretry.UnaryClientInterceptor(grpcretry.Config{Policy: schedule.Times{N: 1},
		Options: retry.Options{Unthrottled: true, AttemptTimeout: timeout, Observer: retry.ObserverFunc(func(_ context.Context, e retry.Event) {
			if e.Kind == retry.Attempted {
				got = e.Verdict
			}
		})}})
	if err != nil {
		t.Fatal(err)
	}
	_ = ic(context.Background(), "/svc.Service/Method", nil, nil, nil, invoke)
	return got
}

func grpcErr(err error) func(*testing.T) verdict.Verdict {
	return func(t *testing.T) verdict.Verdict {
		return grpcVerdict(t, func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error { return err }, 0)
	}
}

func grpcTimeout(t *testing.T) verdict.Verdict {
	return grpcVerdict(t, func(ctx context.Context, _ string, _, _ any, _ *grpc.ClientConn, _ ...grpc.CallOption) error {
		<-ctx.Done()
		return status.FromContextError(ctx.Err()).Err()
	}, 10*time.Millisecond)
}

// cell is how docs/failures.md writes a verdict.
var cells = map[string]verdict.Verdict{
	"retry, counts":  verdict.Transient,
	"retry":          verdict.Retryable,
	"return, counts": verdict.Failure,
	"return":         verdict.Neutral,
}

// table reads the failure table of docs/failures.md: for each row id (the
// word in backquotes that starts the row), the cell of each adapter;
// "·" (the adapter never meets it) is left out.
func table(t *testing.T) (columns []string, rows map[string]map[string]string, order []string) {
	t.Helper()
	b, err := os.ReadFile("../docs/failures.md")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(b), "<!-- failures:table -->")
	body, _, ok2 := strings.Cut(body, "<!-- /failures:table -->")
	if !ok || !ok2 {
		t.Fatal("docs/failures.md has no <!-- failures:table --> ... <!-- /failures:table --> block")
	}
	id := regexp.MustCompile("^`([a-z0-9-]+)`")
	rows = map[string]map[string]string{}
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			continue
		}
		fields := strings.Split(strings.Trim(line, "|"), "|")
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		if columns == nil {
			columns = fields[1 : len(fields)-1] // the last column says why
			continue
		}
		m := id.FindStringSubmatch(fields[0])
		if m == nil {
			continue // the header's rule
		}
		row := map[string]string{}
		for i, c := range columns {
			if cell := strings.Trim(fields[1+i], "*"); cell != "·" {
				row[c] = cell
			}
		}
		rows[m[1]] = row
		order = append(order, m[1])
	}
	return columns, rows, order
}

// TestFailureTable checks every cell of docs/failures.md against the
// adapter's classifier, and that every row an adapter's test knows has a
// cell: the table is what the code does.
func TestFailureTable(t *testing.T) {
	columns, rows, order := table(t)
	for _, c := range columns {
		if adapters[c] == nil {
			t.Errorf("docs/failures.md has a column %q that no test knows", c)
		}
	}
	for name, known := range adapters {
		for id, verdictOf := range known {
			cell, ok := rows[id][name]
			if _, row := rows[id]; !row {
				t.Errorf("%s: the test knows row %q, which docs/failures.md does not have", name, id)
				continue
			}
			want, valid := cells[cell]
			if !ok || !valid {
				t.Errorf("%s, %s: cell %q is not one of retry, counts / retry / return, counts / return", id, name, cell)
				continue
			}
			if got := verdictOf(t); got != want {
				t.Errorf("%s, %s: docs/failures.md says %q (%v), the classifier says %v", id, name, cell, want, got)
			}
		}
	}
	for _, id := range order {
		for name, cell := range rows[id] {
			if adapters[name][id] == nil {
				t.Errorf("%s, %s: the table has %q, which no test checks", id, name, cell)
			}
		}
	}
}
