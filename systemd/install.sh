#!/usr/bin/env bash
# Installs pizzad onto this host, or into a staging root for packagers.
#
#   systemd/install.sh                          # release build, install under /usr/local
#   DESTDIR=/tmp/stage PREFIX=/usr systemd/install.sh
#   BUILD_DIR=.build/debug systemd/install.sh   # install binaries that are already built (no build step)
#
# Installs: $PREFIX/bin/{pizzad,pizzactl}, $PREFIX/share/pizzad/migrations/, /etc/pizzad/pizzad.yaml (never over
# an existing one), $PREFIX/lib/systemd/system/pizzad{.service,.socket,-metrics.socket},
# $PREFIX/share/pizzad/monitoring/ (Prometheus alerts, Grafana dashboard), $PREFIX/lib/sysusers.d/pizzad.conf and
# completion scripts for bash, zsh and fish. On a real host (no DESTDIR) it then creates the user and group and
# reloads systemd; enabling is yours: systemctl enable --now pizzad.socket pizzad
set -euo pipefail
cd "$(dirname "$0")/.."

DESTDIR="${DESTDIR:-}"
PREFIX="${PREFIX:-/usr/local}"
SYSCONFDIR="${SYSCONFDIR:-/etc}"

if [ -z "${BUILD_DIR:-}" ]; then
  # Static Swift runtime: the installed binaries need no Swift toolchain on the host.
  swift build -c release --static-swift-stdlib --product pizzad
  swift build -c release --static-swift-stdlib --product pizzactl
  BUILD_DIR="$(swift build -c release --show-bin-path)"
fi

root="$DESTDIR"
install -d "$root$PREFIX/bin" "$root$PREFIX/share/pizzad/migrations" "$root$SYSCONFDIR/pizzad" \
  "$root$PREFIX/lib/systemd/system" "$root$PREFIX/lib/sysusers.d" \
  "$root$PREFIX/share/bash-completion/completions" "$root$PREFIX/share/zsh/site-functions" \
  "$root$PREFIX/share/fish/vendor_completions.d" "$root$PREFIX/share/doc/pizzad"

# Stripped: the symbol tables are most of a static Swift binary's size and nothing at run time reads them.
install -m 0755 "$BUILD_DIR/pizzad" "$BUILD_DIR/pizzactl" "$root$PREFIX/bin/"
if command -v strip >/dev/null; then
  strip "$root$PREFIX/bin/pizzad" "$root$PREFIX/bin/pizzactl"
else
  echo "strip not found (Debian: binutils): the binaries are installed with their symbol tables"
fi
install -m 0644 migrations/*.sql "$root$PREFIX/share/pizzad/migrations/"
# The central PostgreSQL's schema (replication.postgres), applied by the shipper or `pizzad --migrate-central`.
install -d "$root$PREFIX/share/pizzad/migrations/central"
install -m 0644 migrations/central/*.sql "$root$PREFIX/share/pizzad/migrations/central/"
install -d "$root$PREFIX/share/pizzad/monitoring"
install -m 0644 config/monitoring/pizzad-alerts.yml config/monitoring/pizzad-dashboard.json \
  "$root$PREFIX/share/pizzad/monitoring/"

config="$root$SYSCONFDIR/pizzad/pizzad.yaml"
if [ -e "$config" ]; then
  install -m 0644 config/pizzad.yaml "$config.default"
  echo "kept your $SYSCONFDIR/pizzad/pizzad.yaml; the shipped one is beside it as pizzad.yaml.default"
else
  install -m 0644 config/pizzad.yaml "$config"
fi

sed "s|/usr/local/|$PREFIX/|g" systemd/pizzad.service > "$root$PREFIX/lib/systemd/system/pizzad.service"
install -m 0644 systemd/pizzad.socket "$root$PREFIX/lib/systemd/system/pizzad.socket"
install -m 0644 systemd/pizzad-metrics.socket "$root$PREFIX/lib/systemd/system/pizzad-metrics.socket"
chmod 0644 "$root$PREFIX/lib/systemd/system/pizzad.service"
install -m 0644 systemd/pizzad.sysusers "$root$PREFIX/lib/sysusers.d/pizzad.conf"
install -m 0644 README.md "$root$PREFIX/share/doc/pizzad/README.md"
# An example, not active: see the README, "Replication", for where it goes.
install -m 0644 systemd/pizzad-replication.conf "$root$PREFIX/share/doc/pizzad/pizzad-replication.conf"

"$BUILD_DIR/pizzactl" --generate-completion-script bash > "$root$PREFIX/share/bash-completion/completions/pizzactl"
"$BUILD_DIR/pizzactl" --generate-completion-script zsh > "$root$PREFIX/share/zsh/site-functions/_pizzactl"
"$BUILD_DIR/pizzactl" --generate-completion-script fish > "$root$PREFIX/share/fish/vendor_completions.d/pizzactl.fish"

if [ -z "$DESTDIR" ] && [ -d /run/systemd/system ]; then
  systemd-sysusers "$PREFIX/lib/sysusers.d/pizzad.conf"
  systemctl daemon-reload
  echo "installed; start with: systemctl enable --now pizzad.socket pizzad"
  echo "for Prometheus on 127.0.0.1:9464: systemctl enable --now pizzad-metrics.socket && systemctl restart pizzad"
else
  echo "installed into ${DESTDIR:-/} with prefix $PREFIX"
  echo "on the target system (a package's postinst does this), create the user and group and load the units:"
  echo "  systemd-sysusers $PREFIX/lib/sysusers.d/pizzad.conf && systemctl daemon-reload"
  echo "then: systemctl enable --now pizzad.socket pizzad"
fi
