# shellcheck shell=bash
# A throwaway PostgreSQL cluster for the pgstore module's tests. Sourced by
# .ci/run (set -euo pipefail, ci_cleanups defined). It
#   - installs Debian's postgresql package when initdb and pg_ctl are
#     missing (with sudo when not root);
#   - creates a cluster with initdb in a fresh temporary directory, owned
#     by a user other than root (the `postgres` system user when CI runs
#     as root, created if missing; the CI user otherwise);
#   - starts it listening on a Unix socket in that directory only (no TCP
#     port, so parallel runs on one machine never collide);
#   - exports PSD2_TEST_POSTGRES, the pgx connection string the tests
#     read;
#   - registers ci_pg_stop in ci_cleanups: it stops the server and removes
#     the directory when .ci/run exits, whatever happened.
# To use it by hand: ci_cleanups=(); source .ci/services/postgres.sh; ...;
# ci_pg_stop.

ci_pg_bindir() {
	local d
	# Debian keeps the server binaries out of PATH, one directory per
	# major version; take the newest.
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
			echo "$d"
			return 0
		fi
	done
	if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
		return 0
	fi
	return 1
}

ci_pg_sudo() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

if ! ci_pg_bindir >/dev/null; then
	echo "postgres: initdb/pg_ctl missing, installing Debian's postgresql package"
	ci_pg_sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
	ci_pg_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql
fi
ci_pg_bin="$(ci_pg_bindir)"

# The server refuses to run as root: as root, run it as `postgres`.
ci_pg_user="$(id -un)"
if [ "$(id -u)" -eq 0 ]; then
	ci_pg_user=postgres
	if ! id -u "$ci_pg_user" >/dev/null 2>&1; then
		useradd --system --user-group --home-dir /nonexistent --shell /usr/sbin/nologin "$ci_pg_user"
	fi
fi
ci_pg_as() {
	if [ "$(id -un)" = "$ci_pg_user" ]; then
		"$@"
	else
		runuser -u "$ci_pg_user" -- "$@"
	fi
}

ci_pg_dir="$(mktemp -d "${TMPDIR:-/tmp}/psd2-pg.XXXXXX")"
chmod 0700 "$ci_pg_dir"
if [ "$(id -un)" != "$ci_pg_user" ]; then
	chown "$ci_pg_user" "$ci_pg_dir"
fi

ci_pg_stop() {
	if [ -n "${ci_pg_dir:-}" ] && [ -d "$ci_pg_dir" ]; then
		ci_pg_as "$ci_pg_bin/pg_ctl" -D "$ci_pg_dir/data" -m fast -w stop >/dev/null 2>&1 || true
		rm -rf "$ci_pg_dir"
	fi
}
ci_cleanups+=(ci_pg_stop)

ci_pg_as "$ci_pg_bin/initdb" -D "$ci_pg_dir/data" -U psd2 --auth=trust -E UTF8 --locale=C.UTF-8 --no-instructions >"$ci_pg_dir/initdb.log" 2>&1 ||
	{ cat "$ci_pg_dir/initdb.log" >&2; false; }
# max_connections: the tests open a few pools side by side (one per test,
# two per conformance test); 200 leaves room for the benchmarks' clients.
ci_pg_as "$ci_pg_bin/pg_ctl" -D "$ci_pg_dir/data" -l "$ci_pg_dir/server.log" -w -t 60 start \
	-o "-c listen_addresses='' -c unix_socket_directories='$ci_pg_dir' -c max_connections=200" >/dev/null ||
	{ cat "$ci_pg_dir/server.log" >&2; false; }

export PSD2_TEST_POSTGRES="host=$ci_pg_dir port=5432 user=psd2 dbname=postgres sslmode=disable"
echo "postgres: $("$ci_pg_bin/postgres" --version) running as $ci_pg_user on a Unix socket in $ci_pg_dir"
