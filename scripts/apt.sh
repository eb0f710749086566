# Sourced by scripts/test.sh, scripts/serve.sh and scripts/venv.sh: apt_install PACKAGE... installs Debian's packages, quietly,
# with sudo when not root, and with no question asked (CI has no standard input).
apt_install() {
  [ $# -gt 0 ] || return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}
