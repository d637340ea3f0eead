# qapipe: `make demo` runs the whole pipeline offline on the shipped samples; `make test` runs every check.
GO        ?= go
BIN       := bin
TOOLS     := $(CURDIR)/.tools
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(TOOLS)/staticcheck
CMDS      := qa-load qa-predict qa-judge qa-score qa-learncurve

.PHONY: all build test vet staticcheck race demo bench fuzz clean fmt

all: build

build:
	@mkdir -p $(BIN)
	@for c in $(CMDS); do $(GO) build -o $(BIN)/$$c ./cmd/$$c || exit 1; done

$(STATICCHECK):
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

# The code-point digests run on one goroutine, where the race detector finds nothing and slows
# them sevenfold, so they are built without it (//go:build !race) and run in a pass of their own.
race:
	$(GO) test -race -count=1 -timeout 15m ./...
	$(GO) test -count=1 -run '^TestNormalizerFactsDigest$$' ./pkg/textnorm
	$(GO) test -count=1 -run '^Test(WordNet|CMRC)FactsDigest$$' ./pkg/metric

test: fmt vet staticcheck race

demo: build
	@bash scripts/demo.sh

bench:
	@bash scripts/bench.sh

# Every fuzz target in turn, FUZZTIME each (default 30s); FUZZ=REGEXP picks targets by name.
fuzz:
	@bash scripts/fuzz.sh '$(or $(FUZZ),.)'

clean:
	rm -rf $(BIN) $(TOOLS) bench.out
