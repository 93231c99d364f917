#!/bin/sh
# Run inside xvfb-run: Lizzie on the record $2 with its home folder $1 (its config there names the engine), then
# $3 steps forward through the record by the scroll wheel over the board, a few seconds each, as a user would.
# What Lizzie sent and the engine answered: the engine's own logs (tests/test_gui_clients.py writes the wrapper);
# Lizzie's log (print-comms) in $1/lizzie.out.
java -Duser.home="$1" -jar /usr/share/java/lizzie.jar "$2" > "$1/lizzie.out" 2>&1 &
lizzie=$!
window=""
tries=0
while [ -z "$window" ] && [ $tries -lt 60 ]; do
    sleep 1
    window=$(xdotool search --name "^Lizzie\(" 2>/dev/null | head -1)
    tries=$((tries + 1))
done
sleep 5
if [ -n "$window" ]; then
    xdotool mousemove --window "$window" 400 400
    step=0
    while [ $step -lt "$3" ]; do
        xdotool click 5
        sleep 4
        step=$((step + 1))
    done
fi
sleep 4
kill $lizzie
wait $lizzie 2>/dev/null
[ -n "$window" ]
