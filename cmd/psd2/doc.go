// Command psd2 is the operator's tool for a TPP on the shared Norwegian
// PSD2 interface: what an operator otherwise does by hand with curl and
// openssl.
//
// Usage:
//
//	psd2 <command> [flags]
//
// Commands:
//
//	keyid     the keyId a certificate gives (PEM or PKCS#12): the SDK's form
//	          (docs/interface.md section 5.4), the other renderings a bank
//	          might expect (OpenSSL's, OID.2.5.4.97=, Go's, a padded serial)
//	          and the certificate's validity
//	sign      sign a request offline as the SDK sends it; print it as raw
//	          HTTP, which verify reads (psd2 sign ... | psd2 verify -), or
//	          with -curl a curl command that sends it (-ca adds --cacert
//	          for a bank with its own CA, such as the emulator); a -H
//	          given twice, or of a header sign makes (Signature,
//	          TPP-Signature-Certificate; Date with -date), is refused
//	verify    check a captured request (raw HTTP: request line, headers,
//	          blank line, body; - reads standard input) against
//	          docs/interface.md section 5 and name each fault with its code:
//	          Date, Digest (by the operation's header table), the headers
//	          list (case, repeats, unsigned, missing, a signature made in
//	          another order than listed; any listed order the signing string
//	          follows is right), the RFC 2047 wrapping (none, partial, wrong
//	          charset), keyId (issuer form, RDN order, serial, another
//	          certificate), algorithm, certificate, signature. The headers
//	          are read up to 1 MiB; the body is streamed through the
//	          digests, never held, so its size does not matter
//	probe     send one signed GET /v1/accounts without a PSU per keyId
//	          rendering (each issuer form, each also with a padded serial)
//	          and say which renderings the bank accepts: verified only on an
//	          answer given after the signature check (a 2xx shaped as the
//	          interface's answer, {"accounts":[...]} each with a
//	          resourceId; 401 with a scaRedirect; a consent code),
//	          refused on a refusal of the Signature, undecided with the
//	          reason on anything else (404, 5xx, TLS, the certificate
//	          refused, a 2xx web page or other JSON, a 2xx of a -path
//	          whose answer the probe does not know)
//	emulator  serve the emulator on loopback: one bank, or several at once
//	          with -banks a,b (one host name each, <id>.localhost); every
//	          flag of cmd/psd2-emulator (-addr, -public, -trust,
//	          -known-issues, -limit, the timeouts, -out with its checks);
//	          -control ADDR serves the scenario and clock controls as
//	          JSON on a loopback listener of its own, behind a token it
//	          prints; "psd2 emulator ctl <control> name=value..." calls
//	          one (docs/emulator.md lists them). A failure while it
//	          serves (a banks.json it could not rewrite after a control,
//	          a listener that failed) is said on stderr and ends it with
//	          exit status 3: at once when a server stopped, else when it
//	          is interrupted. Every listener is watched: a bank's own, the
//	          shared one, the control API's; one whose server ends other
//	          than by the command's shutdown is said in one line naming
//	          it (the bank) and the error, and the others are shut down
//	          before it exits 3. One that stopped before the addresses
//	          are printed makes it print none (no ready signal). ctl with neither -control nor a control.json
//	          is a command-line mistake; a control.json it cannot read
//	          (or without a URL and token) exits 3
//	sandbox   reset, list, or seed mock data from a JSON file: customers,
//	          each with its accounts, each account with its transactions
//	          (an example: cmd/psd2/testdata/seed.example.json); a customer
//	          the sandbox has already (its customer number) is skipped when
//	          it has as many accounts as its entry (counted; transactions
//	          not read), so a file seeds once however often it is run; one
//	          it has without any account (a run that stopped part-way) gets
//	          its accounts now; one with some but fewer is named, nothing
//	          made for it, and the command exits non-zero after seeding
//	          the rest. A seed that stops part-way (a request refused)
//	          exits non-zero and says what it made before (the customers,
//	          their entries of the file and ids; --json created,
//	          createdEntries, stopped) and where it stopped. The file is a JSON list of at most 32 MiB; a larger
//	          one, null, one with a key no entry takes (a misspelt
//	          "acounts"), or two entries with one customer number, is
//	          refused before any request. list ends with the
//	          count ("N customer(s)"); a sandbox with no customer at all
//	          (perhaps not the one meant) is said so on stderr.
//	          Refused, before any request, for a base URL the bank
//	          directory lists as a production API, or one it does not know
//	          that is not on loopback (the emulator), unless -force
//	journal   list the payments in doubt as a table (request id, bank id,
//	          age, what, amount and currency, the creditor's account masked
//	          to its last four digits, state; -all every entry), show one
//	          with its resolution and trail, resolve one, or settle one by
//	          hand (-by who -reason why). resolve and settle end with what
//	          the payment is, what to tell the PSU and the next step; for a
//	          payment the resend just created, its scaRedirect, which the
//	          service must bring to the PSU. An entry a resolver is sending
//	          again (its claim) is shown as such and is not settled; a
//	          person's settlement that a later resend contradicts is shown
//	          as a conflict (exit status 1 from the resolve that finds it).
//	          list reads every entry too, so that one in doubt without its
//	          open marker (the store failed to write it) is listed; a
//	          payment the bank cannot fund now (ACCP, fundsAvailable
//	          false) is said so by resolve, never "on its way", and a
//	          payment its resend created with the status the bank
//	          answered (one rejected at once as rejected); an answer
//	          (of the status read, or of the resend) without a
//	          transactionStatus, or with one psd2 does not know (not of
//	          the interface's list: perhaps a payment on hold), leaves
//	          its status unknown: resolve says so and exits 3; an
//	          entry whose recorded body psd2 cannot read has its amount
//	          shown as "body unreadable" (--json bodyUnreadable, why),
//	          never "-", and list and show then say so and exit 3.
//	          A payment in doubt whose entry is lost, only its open
//	          marker left (the entry deleted, or lost with the store's
//	          data), is listed as ENTRY LOST (--json lost, state
//	          entry-lost) and list exits 3: the payment may exist, and
//	          the journal never removes that marker of its own; show
//	          and resolve say it is lost, and settle records a person's
//	          settlement of it. An entry that cannot be read at all
//	          (damaged, or a newer version's) is listed as ENTRY
//	          UNREADABLE (state entry-unreadable, in doubt), the entries
//	          after it too, and list exits 3; show, resolve and settle of
//	          it say psd2 can neither resolve nor settle it (the release
//	          that wrote it, or the bank or the PSU, can say whether its
//	          payment exists)
//	budget    an account's counted calls without the PSU, and when the next
//	          one is allowed (not before the end of the bank's pause, when
//	          it asked the TPP to slow down: a 429 with a Retry-After); a
//	          ledger or a pause the store holds in a form psd2 cannot read
//	          is an error, never "allowed: now"
//
// journal, budget, reconcile and health read the service's store, named
// by -store (or $PSD2_STORE): the directory of its file store, or the PostgreSQL
// connection string (a postgres:// URL or key=value) of its pgstore, with
// -schema when it is not pgstore's default; a key=value string may
// start with any keyword (gssencmode=..., pool_max_conns=...). A location
// that holds no store of the SDK (a missing or foreign directory, a URL
// of another scheme, a database without a pgstore in that schema or a
// schema never migrated) is refused with exit status 3, and so is a
// schema at a version newer than this psd2 knows (a newer release
// migrated it, or its schema_migrations is another application's), by
// every command that opens -store (journal, budget, reconcile, health,
// outbox): psd2 never creates a store, and never reads a wrong one as
// an empty one. A connection string is never printed. Each answer of
// the store (health's and outbox's too) is awaited at most -store-wait
// (30s; 1s to 1h): a database that takes the connection and then answers
// nothing ends the command with exit status 3 and "the store did not
// answer within 30s", never with a partial listing (the journal's and
// the budget's own bound of one store call, 10 s, ends it sooner, with
// "within 10s").
//
// More commands:
//
//	banks     list the bank directory (package banks), or the banks named
//	          (psd2 banks sor, or -bank sor)
//	outbox    list the dead letters of pgstore's event outbox (events the
//	          handler refused on every attempt) with the outbox's counts,
//	          both read at one moment (one snapshot: they agree); at
//	          most -limit dead letters (100) are listed, and when it cut
//	          the list the text says how many are shown and --json has
//	          "more": true;
//	          retry them, or discard one no handler will ever take
//	          (-store a PostgreSQL connection string, or $PSD2_STORE); an
//	          outbox that holds no event at all (none pending, dead or
//	          delivered: perhaps not the service's) is said so on stderr;
//	          a schema at a version newer than this psd2 knows (or whose
//	          schema_migrations is another application's) is an error
//	reconcile list the payments created in a period (-from, -to; the last
//	          30 days by default) with their settlement as package
//	          reconcile knows it (settled, settled with another amount,
//	          returned, stalled, awaiting, not executed; from the journal,
//	          not applicable or untracked), as a table or --json; -store
//	          as for journal (below), and a store that cannot be read, or
//	          holds no reconciliation state, is an error, never an empty
//	          list; so is a -from before the 120 days the store keeps a
//	          payment after its creation (those older go at their
//	          account's next read: a list of then would miss them), and
//	          a -from in the future (a command-line mistake, exit 2);
//	          -limit lists the earliest, and the counts still cover
//	          every payment of the period, held credits and reversals too
//	health    a bank's circuit breaker as the replicas on the store see it
//	          (open since when, next probe: exit status 1 while it is
//	          open, the bank unavailable) and its unavailability of the
//	          last 24 hours; "health report -from -to" prints a period's
//	          downtime records in the EBA's terms (unavailable minutes,
//	          count, longest, uptime) with each record's evidence (the
//	          failed requests' X-Request-IDs, statuses and times); a store
//	          that holds nothing of the bank for this TPP (no open breaker,
//	          downtime record, trace of a forgotten one, or budget ledger)
//	          is an error, never "available";
//	          so is an unavailability whose record was never ended while no
//	          client holds the breaker open (UNKNOWN, exit status 3: the
//	          processes that saw it stopped before the bank answered again;
//	          health report prints the period, counting it to its end, and
//	          exits 3 too), and a record that ends before it starts;
//	          "health records" lists every downtime record of the bank
//	          with its ID, times, failures and flags (backwards,
//	          end-assumed, ongoing, ended-elsewhere, unreadable: exit
//	          status 3; with no record, a store that holds nothing of
//	          the bank is an error, as for health), and "health forget
//	          ID -by WHO -reason WHY" removes the one named when it ends
//	          before it starts or is
//	          unreadable (the latest such record keeps every later report
//	          from figures), in one atomic update of that record, only
//	          while it is as read, and prints what it removed; a trace
//	          of it is kept, and health and health report name it beside
//	          the figures of a period its outage may have reached into;
//	          an ID of no record, of a record reports count, or of one a
//	          replica wrote into meanwhile is refused (exit status 3),
//	          nothing changed
//	profile   the settings a command takes, and where each comes from
//
// A bank is named by -bank <id> (with -env sandbox or production, and
// -banks-file for the TPP's own directory file) or by -url <base URL>.
// Credentials come from -cert/-key (PEM) or -p12; the PKCS#12 password is
// read from the environment variable -password-env names
// (PSD2_P12_PASSWORD), never from the command line.
//
// # Settings and profiles
//
// The settings -bank, -url, -env, -banks-file, -ca, -cert, -key, -p12,
// -password-env, -store, -schema and -store-wait come from the command
// line, else from the variable PSD2_ and the name in upper case
// (PSD2_BANK, PSD2_URL, PSD2_ENV, PSD2_BANKS_FILE, PSD2_CA, PSD2_CERT,
// PSD2_KEY, PSD2_P12, PSD2_PASSWORD_ENV, PSD2_STORE, PSD2_SCHEMA,
// PSD2_STORE_WAIT), else from a profile of the
// config file. The config file is $PSD2_CONFIG (which must then exist),
// else psd2/config.json in the user's config directory ($XDG_CONFIG_HOME,
// else ~/.config, on Linux; os.UserConfigDir elsewhere); without it there
// are no profiles. The profile is -profile NAME, else $PSD2_PROFILE, else
// the file's "profile". The file is JSON, with the settings' names in
// camel case:
//
//	{
//	  "profile": "sandbox",
//	  "profiles": {
//	    "sandbox": {"bank": "sor", "env": "sandbox", "cert": "/etc/tpp/qseal.pem",
//	                "key": "/etc/tpp/qseal.key", "store": "/var/lib/tpp/store"},
//	    "prod":    {"bank": "sor", "env": "production", "p12": "/etc/tpp/qseal.p12",
//	                "passwordEnv": "TPP_P12_PASSWORD", "store": "postgres://tpp@db.internal/tpp"}
//	  }
//	}
//
// A profile names files and places, never a secret: a file with an
// unknown member, a PEM block, or a store connection string holding a
// password is refused (exit status 3); psd2 never writes it. -bank and
// -url come from one place (the first of the command line, the
// variables and the profile that gives either), and so do -cert, -key
// and -p12. psd2 profile prints each setting and where it came from (a
// password as xxxxx; of the PKCS#12 password only whether its variable
// is set). verify's -cert is its own: never taken from a profile.
//
// Flags may come before or after a command's arguments (psd2 journal
// resolve ID -bank sor); "--" ends them. An error is one line in the
// operator's words: what is wrong and what to give or do, without the
// SDK's package names.
//
// Every command takes -h and --json. No command prints a private key, a
// password or an account id it was given, but sign, whose output is the
// request it was given: its URL, headers (a PSU-ID given with -H) and
// body as they are; journal entries are printed in their redacted form.
// The signature and keyId sign prints are not secrets: they go over the
// wire in every request. A control character in what a command prints
// as text (a bank's answer, a store's entry, an error) is written
// escaped (\x1b), never raw to the terminal; --json has the exact
// values; sign prints its request as it is.
//
// Exit status, the same for every command:
//
//	0  done; verify: nothing wrong; probe: at least one rendering verified
//	1  the check ran and found a fault (verify), the bank refused every
//	   rendering (probe), the certificate is not valid now (keyid), the
//	   bank is unavailable, its circuit breaker open (health; health
//	   report prints a period and exits 0), or a resolve found a
//	   person's settlement that the resend contradicts, or left the
//	   payment in doubt for a person to settle (journal)
//	2  a command-line mistake
//	3  any other error: a file, the network, the bank, the store; for
//	   probe, answers that decide no rendering (undecided); for journal
//	   resolve, a payment whose status stays unknown (the status read
//	   failed, or answered no status psd2 knows)
package main
