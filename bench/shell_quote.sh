# Sourced by the bench scripts that log their commands (balanced/run.sh,
# sweep/campaign.sh).  quote WORD...: the words as one line that a shell reads
# back as the same words (plain words as they are, others in single quotes).
quote() {
  local a q="'" out=()
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./:=,+@%-]+$ ]]; then out+=("$a"); else out+=("$q${a//$q/$q\\$q$q}$q"); fi
  done
  echo "${out[*]}"
}
