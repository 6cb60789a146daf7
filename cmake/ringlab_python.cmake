# SYSTEM_PYTHON3: the interpreter of the report scripts' tests (plotting/, tests/*.py): the first
# python3 on PATH that imports pandas, matplotlib and jsonschema, which a pyenv shim or a bare venv
# may lack; the one in /usr/bin is tried last. -DSYSTEM_PYTHON3=/path/to/python3 picks one (it must
# import them too). Left unset when none does: those tests are skipped, with a warning that says
# how to get one (apt-get install python3-pandas python3-matplotlib python3-jsonschema, or
# bash scripts/venv.sh). The name is historical: it need not be the system's python.
set(ringlab_python_modules pandas matplotlib jsonschema)
set(ringlab_python_modules_said "pandas, matplotlib and jsonschema")

function(ringlab_python_imports python result)
  string(REPLACE ";" ", " modules "${ringlab_python_modules}")
  execute_process(COMMAND "${python}" -c "import ${modules}" RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET
                  TIMEOUT 60)
  if(status EQUAL 0)
    set(${result} TRUE PARENT_SCOPE)
  else()
    set(${result} FALSE PARENT_SCOPE)
  endif()
endfunction()

if(SYSTEM_PYTHON3)
  ringlab_python_imports("${SYSTEM_PYTHON3}" ringlab_python_ok)
  if(NOT ringlab_python_ok)
    message(WARNING "ringlab: SYSTEM_PYTHON3=${SYSTEM_PYTHON3} cannot import ${ringlab_python_modules_said}; "
                    "looking for another python3 on PATH")
    unset(SYSTEM_PYTHON3 CACHE)
    unset(SYSTEM_PYTHON3)
  endif()
endif()
if(NOT SYSTEM_PYTHON3)
  if(CMAKE_HOST_WIN32)
    set(ringlab_path_dirs "$ENV{PATH}")
  else()
    string(REPLACE ":" ";" ringlab_path_dirs "$ENV{PATH}")
  endif()
  list(APPEND ringlab_path_dirs /usr/bin)
  foreach(dir IN LISTS ringlab_path_dirs)
    if(dir AND EXISTS "${dir}/python3" AND NOT IS_DIRECTORY "${dir}/python3")
      ringlab_python_imports("${dir}/python3" ringlab_python_ok)
      if(ringlab_python_ok)
        set(SYSTEM_PYTHON3 "${dir}/python3" CACHE FILEPATH
            "python3 that imports pandas, matplotlib and jsonschema (the report scripts' tests)" FORCE)
        break()
      endif()
    endif()
  endforeach()
endif()
if(SYSTEM_PYTHON3)
  message(STATUS "ringlab: report scripts' python: ${SYSTEM_PYTHON3}")
else()
  message(WARNING "ringlab: no python3 on PATH imports ${ringlab_python_modules_said}; the report validation and "
                  "plotting tests are skipped. Install python3-pandas python3-matplotlib python3-jsonschema "
                  "(scripts/install-deps.sh), or make a venv (bash scripts/venv.sh) and put its bin/ first on PATH")
endif()
