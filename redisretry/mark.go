package redisretry

import (
	"context"
	"strings"
)

// idempotentKey is the context key of WithIdempotent's mark.
type idempotentKey struct{}

// WithIdempotent returns ctx marked idempotent: a command (or a pipeline)
// run with it may be sent again after a failure, because running it twice
// does the same as running it once. Mark only such commands: a GET, a SET
// of a fixed value, a DEL; never an INCR, an LPUSH or a script with side
// effects, which a retry after a lost reply would apply twice.
func WithIdempotent(ctx context.Context) context.Context {
	return context.WithValue(ctx, idempotentKey{}, true)
}

// IsIdempotent reports whether ctx carries WithIdempotent's mark.
func IsIdempotent(ctx context.Context) bool {
	v, _ := ctx.Value(idempotentKey{}).(bool)
	return v
}

// readOnly lists the commands Config.ReadOnlyIdempotent retries without a
// mark: commands that read and never write, so that running one twice is
// running it once. Lower case, as go-redis names them.
var readOnly = map[string]bool{
	"get": true, "mget": true, "getrange": true, "strlen": true, "exists": true,
	"type": true, "ttl": true, "pttl": true, "expiretime": true, "pexpiretime": true,
	"getbit": true, "bitcount": true, "bitpos": true,
	"hget": true, "hmget": true, "hgetall": true, "hexists": true, "hlen": true,
	"hkeys": true, "hvals": true, "hstrlen": true,
	"lrange": true, "llen": true, "lindex": true, "lpos": true,
	"scard": true, "sismember": true, "smismember": true, "smembers": true,
	"zcard": true, "zcount": true, "zscore": true, "zmscore": true, "zrank": true,
	"zrevrank": true, "zrange": true, "zrevrange": true, "zrangebyscore": true,
	"zrevrangebyscore": true, "zrangebylex": true, "zlexcount": true,
	"xlen": true, "xrange": true, "xrevrange": true,
	"pfcount": true, "geopos": true, "geodist": true, "geohash": true,
	"ping": true, "echo": true, "dbsize": true,
}

// ReadOnly reports whether the command named name (any case) is on the
// list that Config.ReadOnlyIdempotent retries without WithIdempotent's
// mark: GET, MGET, GETRANGE, STRLEN, EXISTS, TYPE, TTL, PTTL, EXPIRETIME,
// PEXPIRETIME, GETBIT, BITCOUNT, BITPOS; HGET, HMGET, HGETALL, HEXISTS,
// HLEN, HKEYS, HVALS, HSTRLEN; LRANGE, LLEN, LINDEX, LPOS; SCARD,
// SISMEMBER, SMISMEMBER, SMEMBERS; ZCARD, ZCOUNT, ZSCORE, ZMSCORE, ZRANK, ZREVRANK,
// ZRANGE, ZREVRANGE, ZRANGEBYSCORE, ZREVRANGEBYSCORE, ZRANGEBYLEX,
// ZLEXCOUNT; XLEN, XRANGE, XREVRANGE; PFCOUNT (on one key: see below),
// GEOPOS, GEODIST, GEOHASH; PING, ECHO, DBSIZE.
//
// Commands that read and may write are not on it: GETEX and GETDEL, SORT
// (STORE), blocking reads (BLPOP, XREAD with BLOCK), SCAN's cursors (a
// retry restarts nothing, but a caller loop may), EVAL and FCALL.
// PFCOUNT may rewrite a HyperLogLog's cached cardinality, which does not
// change what it counts.
func ReadOnly(name string) bool {
	if readOnly[name] {
		return true
	}
	return readOnly[strings.ToLower(name)]
}
