package pgretry_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/recur-go/recur/pgretry"
	"github.com/recur-go/recur/pgretry/internal/cut"
	"github.com/recur-go/recur/pgretry/internal/pgtest"
	"github.com/recur-go/recur/retry"
)

// The matrix of TestAtMostOnce: every API of DB and SQLDB, every pgx exec
// mode (and a statement without arguments, which pgx always sends with
// the simple protocol), every isolation level for transactions, each cut
// point, by FIN and by RST.
var (
	execModes = []struct {
		name string
		mode pgx.QueryExecMode
		args bool
	}{
		{"cache-statement", pgx.QueryExecModeCacheStatement, true},
		{"cache-describe", pgx.QueryExecModeCacheDescribe, true},
		{"describe-exec", pgx.QueryExecModeDescribeExec, true},
		{"exec", pgx.QueryExecModeExec, true},
		{"simple-protocol", pgx.QueryExecModeSimpleProtocol, true},
		{"no-args", pgx.QueryExecModeCacheStatement, false},
	}
	isoLevels = []struct {
		name string
		pgx  pgx.TxIsoLevel
		sql  sql.IsolationLevel
	}{
		{"read-committed", pgx.ReadCommitted, sql.LevelReadCommitted},
		{"repeatable-read", pgx.RepeatableRead, sql.LevelRepeatableRead},
		{"serializable", pgx.Serializable, sql.LevelSerializable},
	}
	cutPoints = []cut.Point{cut.Idle, cut.Before, cut.Mid, cut.AfterSend, cut.AfterReply}
)

// cutCase is one cell of the matrix.
type cutCase struct {
	api    string // "pgx.Exec", ..., "sql.Tx"
	tx     bool
	mode   int    // index in execModes
	iso    int    // index in isoLevels, for a transaction
	target string // what the rule cuts at: "stmt" (the statement), "commit" or "insert" in a transaction
	at     cut.Point
	rst    bool
}

func (c cutCase) String() string {
	s := c.api + "/" + execModes[c.mode].name
	if c.tx {
		s += "/" + isoLevels[c.iso].name + "/" + c.target
	}
	s += "/" + c.at.String()
	if c.rst {
		return s + "/rst"
	}
	return s + "/fin"
}

// outcome is what a case did: the call's error, how many attempts it
// made and how many rows it left.
type outcome struct {
	err      error
	attempts int
	rows     int
	took     time.Duration
}

// expected is what a case must do, compared with cmp.Diff. Outcomes that
// depend on a race the test cannot pin (a reset that may or may not
// arrive before the next write) are open: only the invariants are
// checked.
type expected struct {
	Failed   bool // the call returns an error
	Unknown  bool // the error matches ErrCommitUnknown
	Attempts int
	Rows     int
	open     bool
}

// expect gives the outcome a case must have. A statement or transaction
// is retried only when no byte of it was written: the connection was
// reset while idle, so that the write itself fails.
func (c cutCase) expect() expected {
	switch {
	case c.at == cut.Idle && c.rst:
		return expected{Attempts: 2, Rows: 1} // the write failed: nothing sent, retried
	case c.at == cut.Idle:
		return expected{Failed: true, Attempts: 1} // written into a closed connection: maybe sent
	case c.tx && c.target == "insert" && c.at == cut.AfterReply:
		return expected{Failed: true, open: true} // the COMMIT's write races the cut
	case c.tx && c.target == "insert":
		return expected{Failed: true, Attempts: 1}
	case c.at == cut.AfterReply:
		return expected{Attempts: 1, Rows: 1}
	case c.tx: // the COMMIT, cut before, during or after it reached the server
		rows := 0
		if c.at == cut.AfterSend {
			rows = 1
		}
		return expected{Failed: true, Unknown: true, Attempts: 1, Rows: rows}
	case c.at == cut.AfterSend:
		return expected{Failed: true, Attempts: 1, Rows: 1} // ran once; not run again
	}
	return expected{Failed: true, Attempts: 1}
}

func allCutCases() []cutCase {
	var cs []cutCase
	for _, api := range []string{"pgx.Exec", "pgx.Query", "pgx.QueryRow", "sql.Exec", "sql.Query", "sql.QueryRow"} {
		for m := range execModes {
			for _, at := range cutPoints {
				for _, rst := range []bool{false, true} {
					cs = append(cs, cutCase{api: api, mode: m, target: "stmt", at: at, rst: rst})
				}
			}
		}
	}
	for _, api := range []string{"pgx.Tx", "sql.Tx"} {
		for m := range execModes {
			for iso := range isoLevels {
				for _, at := range cutPoints {
					for _, rst := range []bool{false, true} {
						cs = append(cs, cutCase{api: api, tx: true, mode: m, iso: iso, target: "commit", at: at, rst: rst})
						if at != cut.Idle && m == 0 {
							cs = append(cs, cutCase{api: api, tx: true, mode: m, iso: iso, target: "insert", at: at, rst: rst})
						}
					}
				}
			}
		}
	}
	return cs
}

// TestAtMostOnce cuts the connection of an unmarked statement or
// transaction at each point of the matrix, through a proxy, and checks
// that no statement ran twice and no transaction committed twice; that a
// COMMIT whose answer was lost is ErrCommitUnknown, and any other error
// from a transaction means that it did not commit; and that what was
// never sent is retried.
func TestAtMostOnce(t *testing.T) {
	s := server(t)
	admin := newPool(t, s, "", nil)
	exec(t, admin, "DROP TABLE IF EXISTS cut_rows", "CREATE TABLE cut_rows (id text NOT NULL)")
	cases := allCutCases()

	start := time.Now()
	results := make([]outcome, len(cases))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(cases) {
					return
				}
				results[i] = runCutCase(t, s, admin, cases[i], "c"+strconv.Itoa(i))
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)

	var dup, double, unknown, retried, failed int
	for i, c := range cases {
		o, want := results[i], c.expect()
		switch {
		case o.rows > 1 && c.tx:
			double++
		case o.rows > 1:
			dup++
		}
		if errors.Is(o.err, pgretry.ErrCommitUnknown) {
			unknown++
		}
		if o.attempts > 1 {
			retried++
		}
		if o.err != nil {
			failed++
		}
		if msg := c.check(o, want); msg != "" {
			t.Errorf("%v: %s; got error %v (code %q), %d attempts, %d rows", c, msg, o.err, pgretry.Code(o.err), o.attempts, o.rows)
		}
	}
	t.Logf("%d cases in %v: %d duplicate rows, %d double commits; %d calls failed, %d of them ErrCommitUnknown; %d retried (nothing sent)",
		len(cases), took.Round(time.Millisecond), dup, double, failed, unknown, retried)
	if dup+double != 0 {
		t.Errorf("%d duplicate rows and %d double commits; want none", dup, double)
	}
}

// check returns what is wrong with o, or "".
func (c cutCase) check(o outcome, want expected) string {
	switch {
	case o.rows > 1:
		return "ran more than once"
	case o.err == nil && o.rows != 1:
		return "succeeded without its row"
	case c.tx && o.err != nil && !errors.Is(o.err, pgretry.ErrCommitUnknown) && o.rows != 0:
		return "an error other than ErrCommitUnknown, yet the transaction committed"
	case want.open:
		return ""
	}
	got := expected{Failed: o.err != nil, Unknown: errors.Is(o.err, pgretry.ErrCommitUnknown), Attempts: o.attempts, Rows: o.rows}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(expected{})); diff != "" {
		return "(-want +got):\n" + diff
	}
	return ""
}

// runCutCase runs one case through a proxy of its own.
func runCutCase(t *testing.T, s *pgtest.Server, admin *pgxpool.Pool, c cutCase, id string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := cut.Listen(serverAddr(t, s))
	if err != nil {
		return outcome{err: err, rows: -1}
	}
	defer p.Close()
	mode := execModes[c.mode]

	var attempts atomic.Int64
	o := fastConfig(pgretry.Config{NoBreaker: true})
	o.Options.Observer = retry.ObserverFunc(func(_ context.Context, e retry.Event) {
		if e.Kind == retry.Retrying {
			attempts.Add(1)
		}
	})
	var call func(ctx context.Context) error
	var warm func(ctx context.Context) error
	var closeDB func()
	if strings.HasPrefix(c.api, "pgx.") {
		cfg, err := pgxpool.ParseConfig(s.DSN("pool_max_conns=1"))
		if err != nil {
			return outcome{err: err, rows: -1}
		}
		cfg.ConnConfig.Port = uint16(p.Port())
		cfg.ConnConfig.DefaultQueryExecMode = mode.mode
		pgretry.Instrument(cfg.ConnConfig)
		noPing(cfg)
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			return outcome{err: err, rows: -1}
		}
		closeDB = pool.Close
		db, err := pgretry.New(pool, o)
		if err != nil {
			return outcome{err: err, rows: -1}
		}
		warm = func(ctx context.Context) error { _, err := pool.Exec(ctx, "SELECT 1"); return err }
		call = pgxCall(db, c, id)
	} else {
		cfg, err := pgx.ParseConfig(s.DSN(""))
		if err != nil {
			return outcome{err: err, rows: -1}
		}
		cfg.Port = uint16(p.Port())
		cfg.DefaultQueryExecMode = mode.mode
		pgretry.Instrument(cfg)
		sqlDB := stdlib.OpenDB(*cfg, stdlib.OptionShouldPing(func(context.Context, stdlib.ShouldPingParams) bool { return false }))
		sqlDB.SetMaxOpenConns(1)
		closeDB = func() { sqlDB.Close() }
		db, err := pgretry.WrapSQL(sqlDB, o)
		if err != nil {
			return outcome{err: err, rows: -1}
		}
		warm = func(ctx context.Context) error { _, err := sqlDB.ExecContext(ctx, "SELECT 1"); return err }
		call = sqlCall(db, c, id)
	}
	defer closeDB()
	if err := warm(ctx); err != nil {
		return outcome{err: fmt.Errorf("warming up: %w", err), rows: -1}
	}
	p.Arm(cut.Rule{At: c.at, RST: c.rst, Match: matcher(c.target)})
	if c.at == cut.Idle {
		time.Sleep(20 * time.Millisecond) // the FIN or RST reaches the client's socket
	}
	begin := time.Now()
	err = call(ctx)
	out := outcome{err: err, took: time.Since(begin), attempts: int(attempts.Load()) + 1}
	if !p.Fired() {
		out.err = fmt.Errorf("the cut never fired (%v)", err)
	}
	if err := admin.QueryRow(ctx, "SELECT count(*) FROM cut_rows WHERE id = $1", id).Scan(&out.rows); err != nil {
		out.rows = -1
		out.err = fmt.Errorf("counting rows: %w", err)
	}
	return out
}

// matcher picks the client message to cut at.
func matcher(target string) func(byte, []byte) bool {
	lower := func(b []byte) []byte { return bytes.ToLower(b) }
	switch target {
	case "commit":
		// The COMMIT itself, not a BEGIN ... READ COMMITTED.
		return func(typ byte, body []byte) bool {
			return typ == 'Q' && bytes.Equal(lower(bytes.TrimRight(body, "\x00")), []byte("commit"))
		}
	}
	// The statement, or the INSERT inside a transaction: its Execute, or
	// its simple query.
	return func(typ byte, body []byte) bool {
		return typ == 'E' || typ == 'Q' && bytes.Contains(lower(body), []byte("insert into cut_rows"))
	}
}

// insertSQL is the case's INSERT and its arguments.
func insertSQL(c cutCase, id string, returning bool) (string, []any) {
	q := "INSERT INTO cut_rows (id) VALUES ($1)"
	args := []any{id}
	if !execModes[c.mode].args {
		q = "INSERT INTO cut_rows (id) VALUES ('" + id + "')"
		args = nil
	}
	if returning {
		q += " RETURNING id"
	}
	return q, args
}

func pgxCall(db *pgretry.DB, c cutCase, id string) func(context.Context) error {
	switch c.api {
	case "pgx.Exec":
		return func(ctx context.Context) error {
			q, args := insertSQL(c, id, false)
			_, err := db.Exec(ctx, q, args...)
			return err
		}
	case "pgx.Query":
		return func(ctx context.Context) error {
			q, args := insertSQL(c, id, true)
			rows, err := db.Query(ctx, q, args...)
			if err != nil {
				return err
			}
			for rows.Next() {
			}
			rows.Close()
			return rows.Err()
		}
	case "pgx.QueryRow":
		return func(ctx context.Context) error {
			q, args := insertSQL(c, id, true)
			var got string
			return db.QueryRow(ctx, q, args...).Scan(&got)
		}
	}
	return func(ctx context.Context) error {
		return db.Tx(ctx, pgx.TxOptions{IsoLevel: isoLevels[c.iso].pgx}, func(tx pgx.Tx) error {
			q, args := insertSQL(c, id, false)
			_, err := tx.Exec(ctx, q, args...)
			return err
		})
	}
}

func sqlCall(db *pgretry.SQLDB, c cutCase, id string) func(context.Context) error {
	switch c.api {
	case "sql.Exec":
		return func(ctx context.Context) error {
			q, args := insertSQL(c, id, false)
			_, err := db.ExecContext(ctx, q, args...)
			return err
		}
	case "sql.Query":
		return func(ctx context.Context) error {
			q, args := insertSQL(c, id, true)
			rows, err := db.QueryContext(ctx, q, args...)
			if err != nil {
				return err
			}
			for rows.Next() {
			}
			rows.Close()
			return rows.Err()
		}
	case "sql.QueryRow":
		return func(ctx context.Context) error {
			q, args := insertSQL(c, id, true)
			var got string
			return db.QueryRowContext(ctx, q, args...).Scan(&got)
		}
	}
	return func(ctx context.Context) error {
		return db.Tx(ctx, &sql.TxOptions{Isolation: isoLevels[c.iso].sql}, func(tx *pgretry.SQLTx) error {
			q, args := insertSQL(c, id, false)
			_, err := tx.ExecContext(ctx, q, args...)
			return err
		})
	}
}

// serverAddr is the host:port of s.
func serverAddr(t *testing.T, s *pgtest.Server) string {
	cfg, err := pgx.ParseConfig(s.DSN(""))
	if err != nil {
		t.Error(err)
		return ""
	}
	return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
}
