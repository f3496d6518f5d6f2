#!/bin/sh
# Records the client's exported API as it is now: api-baseline.jar (what the build's japicmp check
# compares with) and docs/client-api.txt (the same, as javap prints it). Run it from anywhere, after
# a deliberate change to the API, and commit both files with that change (docs/developing.md).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mvn -q -B -pl client -am package -DskipTests -Djapicmp.skip=true -Dspotless.check.skip=true
classes=client/target/classes
{
    echo "# javap -public of the client's exported packages (client/update-api-baseline.sh writes this)"
    (cd "$classes" && ls dev/tenure/client/*.class dev/tenure/client/fence/*.class | sed 's/\.class$//; s|/|.|g' | sort) |
        xargs javap -public -cp "$classes" | grep -v '^Compiled from' |
        awk '/^[^ }]/ { keep = ($1 == "public") } keep { print }'
} > docs/client-api.txt
# The baseline holds the public types only: japicmp compares public and protected members.
grep '^public' docs/client-api.txt | sed -E 's/.* (class|interface) ([^ <]+).*/\2/; s|\.|/|g; s/$/.class/' |
    (cd "$classes" && xargs jar --create --file "$root/client/api-baseline.jar" --date=2026-01-01T00:00:00Z)
echo "api-baseline.jar and docs/client-api.txt updated"
