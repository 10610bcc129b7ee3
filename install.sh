#!/usr/bin/env bash
# Installs everything boardsight needs on a fresh Debian machine (run as root, or with sudo):
# Tesseract (the OCR fallback), the fonts the renderer and the classifier's training use,
# and the Python package with its test extras.
set -euo pipefail
cd "$(dirname "$0")"

DEBIAN_PACKAGES=(
  tesseract-ocr                     # OCR fallback for unsure cells (vision.tiles)
  fonts-dejavu-core fonts-dejavu-extra fonts-liberation fonts-freefont-ttf
  fonts-urw-base35 fonts-texgyre fonts-open-sans fonts-roboto fonts-lato
  fonts-cantarell fonts-crosextra-carlito   # faces for renders and for training the digit reader
)

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "install.sh: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python3 -m pip install -q --disable-pip-version-check -e ".[test]"
