// Package grpcretry retries unary gRPC calls.
package grpcretry
