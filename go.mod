module github.com/tppkit/psd2

go 1.24.0

require (
	github.com/bojanz/currency v1.4.2
	github.com/google/uuid v1.6.0
	github.com/jarcoal/httpmock v1.4.1
	github.com/shopspring/decimal v1.4.0
	github.com/stretchr/testify v1.11.1
	golang.org/x/net v0.47.0
	software.sslmate.com/src/go-pkcs12 v0.7.4
)

require (
	github.com/cockroachdb/apd/v3 v3.2.1 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/crypto v0.44.0 // indirect
	golang.org/x/text v0.31.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
