#!/bin/bash
# usage: rename.sh OLD_FQN NEW_SIMPLE_NAME   (run from the repository root)
# Renames a top-level Java class: moves its file, rewrites its fully qualified name everywhere, and its simple
# name in its own package and in files that import it (never where another package's class of that name is meant).
set -euo pipefail
old_fqn=$1; new=$2
pkg=${old_fqn%.*}; old=${old_fqn##*.}
src=$(git ls-files "*/${pkg//.//}/$old.java")
git mv "$src" "$(dirname "$src")/$new.java"
files=$(git grep -lE "\b$old\b" -- '*.java' '*.md' || true)
for f in $files; do
  if grep -qE "^package $pkg;" "$f" || grep -qE "^import (static )?${pkg//./\\.}\.$old\b" "$f"; then
    perl -pi -e "s/(?<![\w.])$old\b/$new/g" "$f"
  fi
  perl -pi -e "s/\b${pkg//./\\.}\.$old\b/$pkg.$new/g" "$f"
done
