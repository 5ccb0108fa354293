module github.com/recur-go/recur/failuretable

go 1.26.0

replace (
	github.com/recur-go/recur => ../
	github.com/recur-go/recur/grpcretry => ../grpcretry
	github.com/recur-go/recur/mongorecur => ../mongorecur
	github.com/recur-go/recur/natsretry => ../natsretry
	github.com/recur-go/recur/pgretry => ../pgretry
	github.com/recur-go/recur/redisretry => ../redisretry
)

require (
	github.com/jackc/pgx/v5 v5.12.0
	github.com/nats-io/nats.go v1.55.0
	github.com/recur-go/recur v0.1.0
	github.com/recur-go/recur/grpcretry v0.1.0
	github.com/recur-go/recur/mongorecur v0.1.0
	github.com/recur-go/recur/natsretry v0.1.0
	github.com/recur-go/recur/pgretry v0.1.0
	github.com/recur-go/recur/redisretry v0.1.0
	github.com/redis/go-redis/v9 v9.23.0
	go.mongodb.org/mongo-driver/v2 v2.10.0
	google.golang.org/grpc v1.85.0
)

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/nats-io/nkeys v0.4.17 // indirect
	github.com/nats-io/nuid v1.0.1 // indirect
	github.com/xdg-go/scram v1.4.0 // indirect
	github.com/xdg-go/stringprep v1.0.4 // indirect
	github.com/youmark/pkcs8 v0.0.0-20240726163527-a2c0da244d78 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
