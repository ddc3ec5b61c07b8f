# cmake -DIN=FILE -DOUT=FILE -P embed.cmake: FILE's text as one C string
# literal, a line of the file a line of C, for #include in a string.
file(READ "${IN}" text)
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n\"" text "${text}")
file(WRITE "${OUT}" "\"${text}\"\n")
