# Targets: test (what CI runs), bench, fuzz, lint, cover.
GO          ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Property tests run at a larger size here than in the quick -race pass.
RAPID_CHECKS ?= 1000
PROP_PKGS   ?= $(shell $(GO) list -f '{{if or (.TestImports) (.XTestImports)}}{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}{{end}}' ./... | awk '/pgregory.net\/rapid/ {print $$1}')
FUZZTIME    ?= 30s

.PHONY: test vet race props bench fuzz lint cover

test: vet race props

vet:
	$(GO) vet ./...

race:
	$(GO) test -race -count=1 ./...

props:
	@if [ -n "$(PROP_PKGS)" ]; then $(GO) test -count=1 -run 'Prop|Law' $(PROP_PKGS) -rapid.checks=$(RAPID_CHECKS); fi

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

fuzz:
	@for p in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$p | grep '^Fuzz'); do \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$p || exit 1; \
	  done; \
	done

lint: vet
	$(GO) run $(STATICCHECK) ./...

cover:
	$(GO) test -coverprofile=cover.out ./...
	$(GO) tool cover -func=cover.out | tail -1
