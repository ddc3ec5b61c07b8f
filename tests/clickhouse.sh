# tests/clickhouse.sh - sourced by the tests and benchmarks that need a real
# ClickHouse: Debian's clickhouse-server (18.16), started as a plain process
# on loopback with its data in a folder of the caller's.
#
#   clickhouse_start DIR HTTP_PORT TCP_PORT   starts it (again, on the same data,
#                                             after a kill) and waits for it; sets
#                                             clickhouse_pid
#   clickhouse_query HTTP_PORT SQL            prints the answer; non-zero on an error

clickhouse_start() {
  local dir=$1 http=$2 tcp=$3 server
  server=$(command -v clickhouse-server || echo /usr/sbin/clickhouse-server)
  [ -x "$server" ] || { echo "no clickhouse-server: apt-get install clickhouse-server" >&2; return 1; }
  mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/format_schemas"
  cat >"$dir/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><console>1</console></logger>
  <http_port>$http</http_port>
  <tcp_port>$tcp</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$dir/data/</path>
  <tmp_path>$dir/tmp/</tmp_path>
  <user_files_path>$dir/user_files/</user_files_path>
  <format_schema_path>$dir/format_schemas/</format_schema_path>
  <users_config>/etc/clickhouse-server/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  <timezone>UTC</timezone>
</yandex>
XML
  "$server" --config-file="$dir/config.xml" >>"$dir/server.log" 2>&1 &
  clickhouse_pid=$!
  for _ in $(seq 1 300); do
    curl -fsS "http://127.0.0.1:$http/ping" >/dev/null 2>&1 && return 0
    kill -0 "$clickhouse_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "clickhouse-server did not start on port $http:" >&2
  tail -5 "$dir/server.log" >&2
  return 1
}

clickhouse_query() {
  curl -fsS "http://127.0.0.1:$1/?output_format_json_quote_64bit_integers=0" --data-binary "$2"
}
