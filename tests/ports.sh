# tests/ports.sh - sourced by the scripts that start servers on loopback.
# free_base LOW SLOTS WIDTH prints LOW + k * WIDTH for the first k, from one
# drawn from this shell's PID on (so tests running at once spread out), such
# that nothing answers on 127.0.0.1 at any of the WIDTH ports from there:
# a port some other program holds (the machine's own services among them)
# would make a server of the test fail to start. Fails when every slot is
# taken.

port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

free_base() {
  local low=$1 slots=$2 width=$3 k=$(($$ % $2)) n i base busy
  for ((n = 0; n < slots; n++)); do
    base=$((low + k * width))
    busy=0
    for ((i = 0; i < width; i++)); do
      if port_taken $((base + i)); then busy=1; break; fi
    done
    if [ "$busy" = 0 ]; then echo "$base"; return 0; fi
    k=$(((k + 1) % slots))
  done
  echo "tests/ports.sh: no $width free ports in a row from $low" >&2
  return 1
}
